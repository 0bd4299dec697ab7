import Foundation
import GRDB
import TestSupport
import Testing

/// Re-importing a file never moves an activated or activating pass back, so it is never
/// sent again, unless --overwrite-state says so.
@Suite struct WalletReimportTests {
    func show(_ cli: CLI, _ serial: String) throws -> [String: Any] {
        let list = try #require(try cli.run("wallet", "show", serial, "--json", "--reveal").json() as? [[String: Any]])
        return try #require(list.first)
    }

    func state(_ cli: CLI, _ serial: String) throws -> String? {
        try show(cli, serial)["state"] as? String
    }

    /// A pass caught mid-activation, as a process that died would leave it.
    func markActivating(_ cli: CLI, _ serial: String) throws {
        let queue = try DatabaseQueue(path: cli.databasePath)
        try queue.write { db in
            try db.execute(
                sql: "UPDATE pass_record SET state = 'activating' WHERE serial_number = ?", arguments: [serial])
        }
    }

    @Test func aReimportKeepsActivatedAndActivatingStatesAndSaysSo() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            let cli = harness.cli
            let csv = cli.write(
                "passes.csv",
                """
                serialNumber,deviceAccountIdentifier,state,cardSuffix
                SNRE1,DAPLRE1,requiresActivation,1111
                SNRE2,DAPLRE2,requiresActivation,2222
                SNRE3,DAPLRE3,requiresActivation,3333

                """)
            #expect(try cli.run("wallet", "import", csv).status == 0)
            #expect(try harness.activate("SNRE1").outcome == "APPROVED")
            try markActivating(cli, "SNRE2")
            #expect(try state(cli, "SNRE2") == "activating")

            let again = try cli.run("wallet", "import", csv, "--json")
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try again.jsonObject()["keptStates"] as? Int == 2)
            #expect(try state(cli, "SNRE1") == "activated")
            #expect(try state(cli, "SNRE2") == "activating")
            let text = try cli.run("wallet", "import", csv)
            #expect(text.stdout.contains("kept the state of 2 activated or activating passes"), "\(text.stdout)")

            // Activated stays activated: a second activation sends nothing.
            let requests = harness.sandbox.activationRequestCount
            #expect(try harness.activate("SNRE1").outcome == "ALREADY_ACTIVATED")
            #expect(harness.sandbox.activationRequestCount == requests)

            // Forward moves and other columns still apply.
            let suspend = cli.write(
                "suspend.csv", "serialNumber,deviceAccountIdentifier,state,cardSuffix\nSNRE1,DAPLRE1,suspended,9999\n")
            #expect(try cli.run("wallet", "import", suspend, "--json").jsonObject()["keptStates"] as? Int == 0)
            #expect(try state(cli, "SNRE1") == "suspended")

            let overwrite = try cli.run("wallet", "import", csv, "--overwrite-state", "--json")
            #expect(try overwrite.jsonObject()["keptStates"] as? Int == 0)
            #expect(try state(cli, "SNRE1") == "requiresActivation")
            #expect(try state(cli, "SNRE2") == "requiresActivation")
        }
    }

    @Test func aKeptStateStillTakesTheOtherColumns() async throws {
        let cli = CLI()
        #expect(
            try cli.run(
                "wallet", "add", "--serial", "SNK", "--device-account-id", "DAPLK", "--state", "activated",
                "--card-suffix", "1111"
            ).status == 0)
        let csv = cli.write(
            "k.csv", "serialNumber,deviceAccountIdentifier,state,cardSuffix\nSNK,DAPLK,requiresActivation,2222\n")
        let result = try cli.run("wallet", "import", csv, "--json").jsonObject()
        #expect(result["keptStates"] as? Int == 1)
        #expect(result["updated"] as? Int == 1)
        let object = try show(cli, "SNK")
        #expect(object["state"] as? String == "activated")
        #expect(object["cardSuffix"] as? String == "2222")
    }
}

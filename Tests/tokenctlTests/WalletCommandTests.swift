import Foundation
import TestSupport
import Testing

@Suite struct WalletCommandTests {
    let cli = CLI()

    func addPair() throws {
        #expect(
            try cli.run(
                "wallet", "add", "--serial", "SN1234567890", "--device-account-id", "DAPL00000000001234", "--device",
                "iPhone", "--card-suffix", "1234"
            ).status == 0)
        #expect(
            try cli.run(
                "wallet", "add", "--serial", "SN1234567890", "--device-account-id", "DAPL00000000005678", "--device",
                "Watch"
            ).status == 0)
    }

    @Test func addThenListShowsMaskedIdentifiers() throws {
        try addPair()
        let list = try cli.run("wallet", "list")
        #expect(list.status == 0)
        #expect(list.stdout.contains("SN12…7890"))
        #expect(list.stdout.contains("DAPL…1234"))
        #expect(!list.stdout.contains("SN1234567890"))
        #expect(!list.stdout.contains("DAPL00000000001234"))
        #expect(list.stdout.hasSuffix("2 pass records\n"))
    }

    @Test func listJSONUsesTheDocumentedKeysAndRevealShowsWholeValues() throws {
        try addPair()
        let masked = try #require(try cli.run("wallet", "list", "--json").json() as? [[String: Any]])
        #expect(masked.count == 2)
        #expect(
            Set(masked[0].keys) == [
                "serialNumber", "deviceAccountIdentifier", "passTypeIdentifier", "state", "device", "cardSuffix",
            ])
        #expect(masked[0]["serialNumber"] as? String == "SN12…7890")
        #expect(masked[0]["state"] as? String == "requiresActivation")
        #expect(masked[1]["cardSuffix"] is NSNull)

        let revealed = try #require(try cli.run("wallet", "list", "--json", "--reveal").json() as? [[String: Any]])
        #expect(
            revealed.map { $0["deviceAccountIdentifier"] as? String } == ["DAPL00000000001234", "DAPL00000000005678"])
        #expect(try cli.run("wallet", "list", "--json", "--state", "activated").stdout == "[]\n")
    }

    @Test func showTakesTheSerialAsAPositionalArgument() throws {
        try addPair()
        let show = try cli.run("wallet", "show", "SN1234567890", "--device", "Watch", "--json", "--reveal")
        #expect(show.status == 0)
        let records = try #require(try show.json() as? [[String: Any]])
        #expect(records.map { $0["deviceAccountIdentifier"] as? String } == ["DAPL00000000005678"])
    }

    @Test func showOrRemoveOfAnUnknownSerialExits66WithAJSONError() throws {
        for command in ["show", "remove"] {
            let result = try cli.run("wallet", command, "SN-NOT-THERE-1", "--json")
            #expect(result.status == 66)
            let error = try #require(try result.jsonObject()["error"] as? [String: Any])
            #expect(error["code"] as? String == "wallet.notFound")
            #expect(error["message"] as? String == "no pass record matches serial SN-N…RE-1")
            #expect(result.stderr.contains("no pass record matches"))
        }
    }

    @Test func removeOfASharedSerialAsksForTheDevice() throws {
        try addPair()
        let ambiguous = try cli.run("wallet", "remove", "SN1234567890")
        #expect(ambiguous.status == 66)
        #expect(ambiguous.stderr.contains("--device"))
        #expect(ambiguous.stderr.contains("wallet.ambiguous"))

        let removed = try cli.run("wallet", "remove", "SN1234567890", "--device", "Watch")
        #expect(removed.status == 0)
        #expect(removed.stdout == "removed pass SN12…7890 on device \"Watch\"\n")
        #expect(try cli.run("wallet", "remove", "SN1234567890").status == 0)
        #expect(try cli.run("wallet", "remove", "SN1234567890").status == 66)
    }

    @Test(arguments: [
        (["--card-suffix", "12a4"], "cardSuffix must be 4 or 5 digits"),
        (["--state", "done"], "state must be one of"),
        (["--device-account-id", "DAPL-1"], "deviceAccountIdentifier must be 1 to 64 letters or digits"),
        (["--serial", String(repeating: "S", count: 129)], "serialNumber must be 1 to 128 bytes"),
    ])
    func anInvalidOptionValueExits64(override: [String], message: String) throws {
        var options = ["--serial": "SN1", "--device-account-id": "DAPL1"]
        options[override[0]] = override[1]
        let arguments = ["wallet", "add", "--json"] + options.flatMap { [$0.key, $0.value] }
        let result = try cli.run(arguments)
        #expect(result.status == 64)
        let error = try #require(try result.jsonObject()["error"] as? [String: Any])
        #expect(error["code"] as? String == "wallet.invalidValue")
        #expect((error["message"] as? String)?.contains(message) == true)
        #expect(try cli.run("wallet", "list", "--json").stdout == "[]\n")
    }

    @Test func addingAnExistingRecordExits65() throws {
        try addPair()
        let duplicate = try cli.run(
            "wallet", "add", "--serial", "SN1234567890", "--device-account-id", "DAPL00000000001234", "--device",
            "iPhone", "--json")
        #expect(duplicate.status == 65)
        #expect((try duplicate.jsonObject()["error"] as? [String: Any])?["code"] as? String == "wallet.duplicate")
        let conflict = try cli.run(
            "wallet", "add", "--serial", "SN1234567890", "--device-account-id", "DAPL99", "--device", "Watch")
        #expect(conflict.status == 65)
        #expect(conflict.stderr.contains("wallet.conflict"))
    }

    @Test func usageErrorsExit64() throws {
        #expect(try cli.run("wallet", "add", "--serial", "SN1").status == 64)
        #expect(try cli.run("wallet", "frobnicate").status == 64)
        #expect(try cli.run("wallet", "list", "--state", "nope").status == 64)
        #expect(try cli.run("wallet", "list", "--log-level", "loud").status == 64)
        let json = try cli.run("wallet", "show", "--json")
        #expect(json.status == 64)
        let error = try #require(try json.jsonObject()["error"] as? [String: Any])
        #expect(error["code"] as? String == "usage.invalid")
        #expect((error["message"] as? String)?.contains("serial") == true)
        #expect(json.stderr.contains("usage: tokenctl wallet show"))
    }

    @Test func helpExplainsTheCommands() throws {
        let help = try cli.run("wallet", "--help")
        #expect(help.status == 0)
        for command in ["add", "show", "list", "remove", "import", "export"] {
            #expect(help.stdout.contains(command))
        }
        let importHelp = try cli.run("wallet", "import", "--help")
        #expect(importHelp.stdout.contains("nothing from the file is written"))
    }

    @Test func globalOptionsWorkBeforeOrAfterTheSubcommand() throws {
        let config = cli.write("config.json", #"{"database": {"path": "from-config.sqlite"}}"#)
        var noDatabase = cli
        noDatabase.environment["TOKENCTL_DATABASE_PATH"] = nil
        #expect(
            try noDatabase.run("--config", config, "wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL1")
                .status == 0)
        #expect(FileManager.default.fileExists(atPath: cli.directory.file("from-config.sqlite")))
        let after = try noDatabase.run("wallet", "list", "--config", config, "--json")
        #expect((try after.json() as? [Any])?.count == 1)
        let before = try noDatabase.run("--config=\(config)", "--log-level", "error", "wallet", "list", "--json")
        #expect((try before.json() as? [Any])?.count == 1)
        let explicit = try noDatabase.run("--database", cli.directory.file("other.sqlite"), "wallet", "list", "--json")
        #expect(explicit.stdout == "[]\n")
    }
}

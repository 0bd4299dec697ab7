import Foundation
import Sandbox
import TestSupport
import Testing

/// The storage contract: what the wallet, import, activation and audit commands promise,
/// one test body run on SQLite and on PostgreSQL (the real `tokenctl` binary, a real
/// PostgreSQL 15 server that `make test` starts, the sandbox on loopback).
@Suite struct StorageContractTests {
    @Test(arguments: Backend.allCases)
    func walletCommandsKeepTheirContract(_ backend: Backend) async throws {
        let harness = try await ActivationHarness.start(backend: backend)
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("S1", "DA1", device: "iPhone")
            try harness.add("S1", "DA2", device: "Watch")

            let duplicate = try harness.cli.run(
                "wallet", "add", "--serial", "S1", "--device-account-id", "DA1", "--device", "iPhone", "--json")
            #expect(duplicate.status == 65 && duplicate.errorCode == "wallet.duplicate", "\(duplicate.stdout)")
            let conflict = try harness.cli.run(
                "wallet", "add", "--serial", "S1", "--device-account-id", "DA3", "--device", "iPhone", "--json")
            #expect(conflict.status == 65 && conflict.errorCode == "wallet.conflict", "\(conflict.stdout)")

            let shown = try #require(
                try harness.cli.run("wallet", "show", "S1", "--json", "--reveal").json() as? [[String: Any]])
            #expect(shown.compactMap { $0["deviceAccountIdentifier"] as? String } == ["DA1", "DA2"])
            let missing = try harness.cli.run("wallet", "show", "NOPE", "--json")
            #expect(missing.status == 66 && missing.errorCode == "wallet.notFound")

            let ambiguous = try harness.cli.run("wallet", "remove", "S1", "--json")
            #expect(ambiguous.errorCode == "wallet.ambiguous", "\(ambiguous.stdout)")
            #expect(try harness.cli.run("wallet", "remove", "S1", "--device", "Watch").status == 0)
            let exported = try harness.cli.run("wallet", "export", "--format", "csv")
            #expect(exported.stdout.split(separator: "\n").count == 2, "\(exported.stdout)")
            #expect(exported.stdout.contains("S1,DA1,"))
        }
    }

    @Test(arguments: Backend.allCases)
    func importMergesKeepsActivatedStatesAndIsAllOrNothing(_ backend: Backend) async throws {
        let harness = try await ActivationHarness.start(backend: backend)
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("K1", "DK1", state: "activated")
            let file = harness.cli.write(
                "in.csv",
                """
                serialNumber,deviceAccountIdentifier,state,device
                K1,DK1,requiresActivation,
                K2,DK2,,iPhone
                K3,DK3,suspended,

                """)
            let first = try harness.cli.run("wallet", "import", file, "--json")
            #expect(first.status == 0, "\(first.stderr)")
            let summary = first.object
            #expect(summary["inserted"] as? Int == 2, "\(summary)")
            #expect(summary["keptStates"] as? Int == 1, "\(summary)")
            #expect(try harness.state("K1") == ["activated"])
            #expect(try harness.state("K3") == ["suspended"])

            let again = try harness.cli.run("wallet", "import", file, "--json").object
            #expect(again["inserted"] as? Int == 0 && again["updated"] as? Int == 0, "\(again)")

            let clash = harness.cli.write(
                "clash.csv", "serialNumber,deviceAccountIdentifier,device\nK4,DK4,\nK2,DK9,iPhone\n")
            let refused = try harness.cli.run("wallet", "import", clash, "--json")
            #expect(refused.status == 65 && refused.errorCode == "import.conflict", "\(refused.stdout)")
            #expect(refused.stderr.contains("line 3"), "\(refused.stderr)")
            #expect(try harness.cli.run("wallet", "show", "K4").status == 66, "a refused import wrote a row")
        }
    }

    @Test(arguments: Backend.allCases)
    func activationsAreAuditedInAVerifiableChain(_ backend: Backend) async throws {
        let harness = try await ActivationHarness.start(backend: backend)
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("A1", "DA1")
            try harness.add("A2", "SBXDECLINED")
            for serial in (0..<40).map({ "B\($0)" }) { try harness.add(serial, "DB\(serial)") }

            #expect(try harness.activate("A1").outcome == "APPROVED")
            #expect(try harness.activate("A1").outcome == "ALREADY_ACTIVATED")
            #expect(try harness.activate("A2").outcome == "DECLINED")
            #expect(try harness.state("A2") == ["requiresActivation"])
            let missing = try harness.activate("NOPE")
            #expect(missing.status == 66 && missing.errorCode == "wallet.notFound")

            let lines = (0..<40).map { "mybank://activate?serialNumber=B\($0)\n" }.joined()
            let batch = try harness.cli.run([
                "activate", "--batch", harness.cli.write("b.txt", lines), "--concurrency", "4", "--json",
            ])
            #expect(batch.status == 0, "\(batch.stderr)")
            let outcomes = batch.stdout.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["outcome"] as? String
            }
            #expect(outcomes.filter { $0 == "APPROVED" }.count == 40, "\(batch.stdout.suffix(300))")

            #expect(harness.sandbox.activationRequestCount == 42)
            #expect(try harness.unauditedRequests().isEmpty)
            let entries = try harness.auditEntries()
            #expect(entries.count == 44)
            let verified = try harness.cli.run("audit", "verify")
            #expect(
                verified.status == 0 && verified.stdout.contains("88 rows"), "\(verified.stdout) \(verified.stderr)")
        }
    }

    @Test(arguments: Backend.allCases)
    func anAttemptKilledMidRequestIsClosedAsUnknownByTheNextOne(_ backend: Backend) async throws {
        let harness = try await ActivationHarness.start(slowDelay: .seconds(30), backend: backend)
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("K1", "SBXSLOW")
            let running = try harness.cli.start(
                ["activate", "mybank://activate?serialNumber=K1", "--json"],
                environment: ["TOKENCTL_TMP_TIMEOUT_MS": "60000"])
            harness.waitForRequests(1)
            kill(running.process.processIdentifier, SIGKILL)
            running.process.waitUntilExit()
            #expect(try harness.state("K1") == ["activating"])

            // The owner is gone (on this host, its process is known dead at once).
            // The sandbox holds the request; 2 s is long enough for it to arrive on a busy machine
            // (200 ms could end before the connection was accepted, and nothing was sent).
            let next = try harness.activate("K1", environment: ["TOKENCTL_TMP_TIMEOUT_MS": "2000"])
            #expect(next.stderr.contains("activation.interrupted"), "\(next.stderr)")
            #expect(harness.sandbox.activationRequestCount == 2)
            let first = try #require(try harness.auditEntries().first)
            #expect(first["outcome"] as? String == "UNKNOWN")
            #expect(first["errorCode"] as? String == "activation.interrupted", "\(first)")
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }

    @Test(arguments: Backend.allCases)
    func theAuditRefusesChangesInTheDatabaseItself(_ backend: Backend) async throws {
        let harness = try await ActivationHarness.start(backend: backend)
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("T1", "DT1")
            #expect(try harness.activate("T1").outcome == "APPROVED")
            for sql in ["UPDATE audit_row SET outcome = 'DECLINED'", "DELETE FROM audit_row"] {
                let result: (status: Int32, output: String)
                switch backend {
                case .sqlite:
                    result = try sqlite3(harness.cli.databasePath, sql)
                case .postgres:
                    result = try #require(harness.postgres).psql(sql)
                }
                #expect(result.status != 0, "\(sql) was allowed")
            }
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }
}

/// Runs SQL on a SQLite file with the sqlite3 shell.
func sqlite3(_ path: String, _ sql: String) throws -> (status: Int32, output: String) {
    try runProgram("/usr/bin/sqlite3", [path, sql])
}

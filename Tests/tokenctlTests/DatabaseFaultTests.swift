import Foundation
import TestSupport
import Testing

/// Database faults seen through the commands that write: a read-only file, a file with
/// damaged pages, and a write lock held by another process. Each gives its documented
/// exit code (74 or 75) and a clear message, sends nothing to TMP, and leaves the file as
/// it was.
@Suite struct DatabaseFaultTests {
    let harness: ActivationHarness

    init() async throws {
        harness = try await ActivationHarness.start()
        var passes = "serialNumber,deviceAccountIdentifier\n"
        for index in 0..<300 { passes += "SN\(index),DAPL\(index)\n" }
        let imported = try harness.cli.run("wallet", "import", harness.cli.write("passes.csv", passes))
        try #require(imported.status == 0, "\(imported.stderr)")
    }

    var database: String { harness.cli.databasePath }
    var importFile: String {
        harness.cli.write("more.csv", "serialNumber,deviceAccountIdentifier\nNEW1,DAPLNEW1\nNEW2,DAPLNEW2\n")
    }

    /// The commands that write, each with the exit code and error code expected.
    func writingCommands() -> [[String]] {
        [
            ["activate", "mybank://activate?serialNumber=SN1", "--json"],
            ["wallet", "add", "--serial", "NEW0", "--device-account-id", "DAPLNEW0", "--json"],
            ["wallet", "import", importFile, "--json"],
            ["wallet", "remove", "SN2", "--json"],
        ]
    }

    func errorCode(_ result: CLIResult) -> String? {
        ((try? result.jsonObject())?["error"] as? [String: Any])?["code"] as? String
    }

    @Test func aReadOnlyDatabaseExits74AndStaysAsItWas() async throws {
        try await withTeardown({ try await harness.stop() }) {
            let before = try Data(contentsOf: URL(fileURLWithPath: database))
            chmod(database, 0o444)
            // root may write any file: run as nobody, who may read it but not write it.
            let asUnprivileged = geteuid() == 0
            if asUnprivileged { chmod(harness.cli.directory.path, 0o755) }
            for command in writingCommands() {
                let result =
                    asUnprivileged
                    ? try harness.cli.run(
                        executable: "/usr/bin/setpriv",
                        ["--reuid=65534", "--regid=65534", "--clear-groups", CLI.binary] + command)
                    : try harness.cli.run(command)
                #expect(result.status == 74, "\(command): \(result.stderr)")
                #expect(errorCode(result) == "storage.readOnly", "\(command): \(result.stdout)")
                #expect(result.stderr.contains("read-only"), "\(command): \(result.stderr)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
            #expect(harness.sandbox.activationRequestCount == 0)
        }
    }

    @Test func damagedPagesExit74AndNothingIsSent() async throws {
        try await withTeardown({ try await harness.stop() }) {
            // Keep the header page, replace the rest with random bytes (seeded, printed).
            let seed = SeededGenerator.seed(from: "TOKENCTL_CORRUPTION_SEED")
            print("damaged pages: seed \(seed)")
            var random = SeededGenerator(seed: seed)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: database))
            for index in 4096..<bytes.count { bytes[index] = UInt8.random(in: 0...255, using: &random) }
            try bytes.write(to: URL(fileURLWithPath: database))
            for command in writingCommands() + [["wallet", "list", "--json"], ["audit", "verify", "--json"]] {
                let result = try harness.cli.run(command)
                #expect(result.status == 74, "\(command): \(result.stdout) \(result.stderr)")
                #expect(errorCode(result) == "storage.corrupt", "\(command): \(result.stdout)")
                #expect(result.stderr.contains("restore it from a backup"))
            }
            // The human line of an activation names what failed, not "deeplink".
            let human = try harness.cli.run("activate", "mybank://activate?serialNumber=SN1")
            #expect(human.stdout == "ERROR: the database (storage.corrupt)\n", "\(human.stdout)")
            // A list that fails prints its error only, no table header.
            let list = try harness.cli.run("wallet", "list")
            #expect(list.status == 74 && list.stdout.isEmpty, "\(list.stdout)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == bytes)
            #expect(harness.sandbox.activationRequestCount == 0)
        }
    }

    @Test func aLongWriteTransactionElsewhereExits75AndNothingIsSentOrWritten() async throws {
        try await withTeardown({ try await harness.stop() }) {
            let holder = try WriteLockHolder(database: database)
            for command in writingCommands() {
                let result = try harness.cli.run(command, environment: ["TOKENCTL_DATABASE_BUSY_TIMEOUT_MS": "300"])
                #expect(result.status == 75, "\(command): \(result.stderr)")
                #expect(errorCode(result) == "storage.busy", "\(command): \(result.stdout)")
                #expect(result.stderr.contains("try again later"))
                #expect(!result.stderr.contains("database is locked"))
            }
            holder.release()
            #expect(harness.sandbox.activationRequestCount == 0)
            #expect(try harness.auditEntries().isEmpty)
            let records = try #require(try harness.cli.run("wallet", "list", "--json").json() as? [[String: Any]])
            #expect(records.count == 300)
        }
    }
}

import Foundation
import Sandbox
import TestSupport
import Testing

@Suite struct AuditCommandTests {
    @Test func filtersExportAndShow() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1234567890", "DAPL00000000001234")
            try harness.add("SN2", "SBXDECLINED0002")
            _ = try harness.activate("SN1234567890")
            _ = try harness.activate("SN2")

            let declined = try #require(
                try harness.cli.run("audit", "list", "--outcome", "DECLINED", "--json").json() as? [[String: Any]])
            #expect(declined.count == 1)
            #expect(
                Array(declined[0].keys).sorted() == [
                    "cardLast4Digits", "comment", "errorCode", "finishedAt", "httpStatus", "id", "latencyMs", "outcome",
                    "requestId", "serialNumber", "startedAt", "tokenUniqueReference",
                ])
            #expect(
                try #require(
                    try harness.cli.run("audit", "list", "--serial", "SN1234567890", "--json").json() as? [Any]
                )
                .count == 1)
            #expect(try harness.cli.run("audit", "list", "--since", "2999-01-01", "--json").stdout == "[]\n")
            #expect(
                try #require(
                    try harness.cli.run("audit", "list", "--until", "2999-01-01T00:00:00+02:00", "--json").json()
                        as? [Any]
                ).count == 2)
            #expect(try harness.cli.run("audit", "list", "--since", "yesterday").status == 64)
            // A date alone in --until includes that whole day (UTC).
            let entries = try #require(try harness.cli.run("audit", "list", "--json").json() as? [[String: Any]])
            let today = String(try #require(entries.first?["startedAt"] as? String).prefix(10))
            #expect(
                try #require(try harness.cli.run("audit", "list", "--until", today, "--json").json() as? [Any]).count
                    == 2)
            #expect(
                try #require(
                    try harness.cli.run("audit", "list", "--since", today, "--until", today, "--json").json() as? [Any]
                ).count == 2)

            let masked = try harness.cli.run("audit", "export", "--format", "csv")
            #expect(masked.stdout.hasPrefix("id,requestId,startedAt"))
            #expect(masked.stdout.contains("DAPL…1234") && !masked.stdout.contains("DAPL00000000001234"))
            #expect(try harness.cli.run("audit", "export", "--reveal").stdout.contains("DAPL00000000001234"))

            let show = try harness.cli.run("audit", "show", "1")
            #expect(show.stdout.contains("outcome:         APPROVED"))
            // The JSON carries what the text shows.
            let shown = try harness.cli.run("audit", "show", "1", "--json").jsonObject()
            let hashLine = try #require(show.stdout.split(separator: "\n").first { $0.hasPrefix("deeplink hash:") })
            #expect(hashLine.hasSuffix(try #require(shown["deeplinkHash"] as? String)))
            #expect(shown["passTypeIdentifier"] as? String == "paymentpass.com.apple")
            #expect(shown.keys.contains("device"))
            #expect(try harness.cli.run("audit", "show", "99", "--json").status == 66)
        }
    }

    @Test func tamperingBreaksTheChainAndRowsCannotBeChanged() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", "DAPL1")
            _ = try harness.activate("SN1")
            _ = try harness.activate("SN1")
            #expect(
                try harness.cli.run("audit", "verify", "--json").stdout
                    == "{\"verified\": true, \"rows\": 4, \"checkpoints\": 0}\n")

            // The triggers refuse changes through SQL...
            let refused = try sqlite(
                harness.cli.databasePath, "UPDATE audit_row SET outcome = 'DECLINED' WHERE seq = 2")
            #expect(refused.contains("append-only"))
            // ...and someone who drops them to rewrite a row is caught by verify.
            _ = try sqlite(
                harness.cli.databasePath,
                "DROP TRIGGER audit_row_append_only_update; UPDATE audit_row SET outcome = 'DECLINED' WHERE seq = 2")
            let broken = try harness.cli.run("audit", "verify", "--json")
            #expect(broken.status == 65)
            #expect(broken.errorCode == "audit.chainBroken")
            #expect(
                (broken.object["error"] as? [String: Any])?["message"] as? String
                    == "the audit chain is broken at audit entry 1 (its finished row): its content does not match its hash (the row was changed)"
            )
            // The id it names is one `audit show` finds.
            #expect(try harness.cli.run("audit", "show", "1").status == 0)
        }
    }

    /// Runs SQL with Python's sqlite3 module (another process, another SQLite client).
    func sqlite(_ path: String, _ sql: String) throws -> String {
        try runProgram(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sqlite3, sys\ntry:\n    sqlite3.connect(sys.argv[1]).executescript(sys.argv[2])\nexcept Exception as e:\n    print(e)",
                path, sql,
            ]
        ).output
    }
}

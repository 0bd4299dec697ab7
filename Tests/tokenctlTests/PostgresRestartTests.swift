import Foundation
import TestSupport
import Testing

/// PostgreSQL restarted (stopped at once, as a crash would) in the middle of a batch, on a
/// server of the test's own: every request that left is audited once the connection is
/// back, nothing is sent twice, the lines that could not finish are named, and the chain
/// verifies.
@Suite struct PostgresRestartTests {
    @Test func aServerRestartMidBatchLosesNothingAndSendsNothingTwice() async throws {
        // Under /tmp itself: the server runs as the postgres user, who cannot enter a
        // test's private directory.
        let server = PrivateServer(directory: "/tmp/tokenctl-restart-test-\(UUID().uuidString.prefix(8))")
        let exports = try server.run("start")
        defer { _ = try? server.run("stop", "--purge") }
        var harness = try await ActivationHarness.start()
        let sandbox = harness.sandbox
        try await withTeardown({ try await sandbox.shutdown() }) {
            let url = try #require(exports.firstMatch(of: /TOKENCTL_TEST_DATABASE_URL='([^']+)'/)?.1)
            harness.cli.environment["TOKENCTL_DATABASE_URL"] = String(url)
            harness.cli.environment["TOKENCTL_DATABASE_PASSWORD"] = TestPostgres.password
            harness.cli.environment["TOKENCTL_DATABASE_LEASE_MS"] = "1000"
            #expect(try harness.cli.run("db", "migrate").status == 0)
            let serials = (0..<400).map { "R\($0)" }
            #expect(
                try harness.cli.run(
                    "wallet", "import",
                    harness.cli.write(
                        "w.csv", "serialNumber,deviceAccountIdentifier\n" + serials.map { "\($0),D\($0)\n" }.joined())
                ).status == 0)

            let lines = harness.cli.write("b.txt", serials.map { "mybank://activate?serialNumber=\($0)\n" }.joined())
            let batch = try harness.cli.start(["activate", "--batch", lines, "--concurrency", "4", "--json"])
            harness.waitForRequests(100)
            _ = try server.run("restart")
            let result = try batch.finish()
            let reported = result.stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
            #expect(reported.count == 400, "every line is reported: \(result.stderr.suffix(400))")
            let unfinished = reported.filter { $0["outcome"] as? String != "APPROVED" }
            for line in unfinished {
                let code = (line["error"] as? [String: Any])?["code"] as? String ?? ""
                #expect(code.hasPrefix("storage.") || code == "activation.inProgress", "\(line)")
            }

            #expect(requestsPerToken(harness).values.allSatisfy { $0 == 1 }, "a pass was sent twice")
            #expect(try harness.unauditedRequests().isEmpty, "a request that left is not audited")
            #expect(try harness.cli.run("audit", "verify").status == 0)

            // Once the leases of attempts cut off by the restart expire, a second run finishes the rest.
            usleep(1_100_000)
            let rerun = try harness.cli.run(["activate", "--batch", lines, "--concurrency", "4", "--json"])
            #expect([0, 69].contains(rerun.status), "\(rerun.stderr.suffix(300))")
            let activated = try #require(
                try harness.cli.run("wallet", "list", "--state", "activated", "--json").json() as? [Any])
            #expect(activated.count == 400)
            #expect(try harness.unauditedRequests().isEmpty)
            #expect(try harness.cli.run("audit", "verify").status == 0)
            print(
                "restart mid-batch: \(400 - unfinished.count) lines finished in the first run, \(unfinished.count) named as unfinished"
            )
        }
    }

    /// A write whose commit fails after the server has computed its answer (here a deferred
    /// check refuses the "started" row at commit) is not taken as written: the request does
    /// not leave, the pass stays as it was, and the failure is a storage error. This is the
    /// window a server killed between a statement's answer and its commit would open.
    @Test func aWriteWhoseCommitFailsIsNotTakenAsWritten() async throws {
        let harness = try await ActivationHarness.start(backend: .postgres)
        try await withTeardown({ try await harness.stop() }) {
            let database = try #require(harness.postgres)
            try harness.add("COMMITFAILS", "DCOMMITFAILS")
            try harness.add("C2", "DC2")
            let refused = try database.psql(
                """
                CREATE FUNCTION refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'refused at commit'; END $$;
                CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER INSERT ON audit_row DEFERRABLE INITIALLY DEFERRED
                    FOR EACH ROW WHEN (NEW.serial_number = 'COMMITFAILS') EXECUTE FUNCTION refuse_at_commit();
                """)
            try #require(refused.status == 0, "\(refused.output)")

            let failed = try harness.activate("COMMITFAILS")
            #expect(failed.status == 74 && failed.errorCode == "storage.io", "\(failed.stdout) \(failed.stderr)")
            #expect(harness.sandbox.activationRequestCount == 0, "a request left on a write that never committed")
            #expect(try harness.state("COMMITFAILS") == ["requiresActivation"])
            #expect(
                try database.psql("SELECT count(*) FROM audit_row").output.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                    == "0")

            // The pass next to it is activated as usual, and the audit verifies.
            #expect(try harness.activate("C2").outcome == "APPROVED")
            #expect(harness.sandbox.activationRequestCount == 1)
            #expect(try harness.unauditedRequests().isEmpty)
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }

    private func requestsPerToken(_ harness: ActivationHarness) -> [String: Int] {
        Dictionary(harness.sandbox.activatedReferences.map { ($0, 1) }, uniquingKeysWith: +)
    }
}

import Foundation
import Sandbox
import TestSupport
import Testing

/// Checkpoints published to a witness through the binary (DESIGN §9): the sandbox's honest
/// witness cosigns what extends what it cosigned, its cosignature verifies without tokenctl
/// (scripts/tlog-verify.py), and it refuses a rewritten log, an older copy of the database
/// and a log whose client holds the wrong key for it.
@Suite struct WitnessPublishTests {
    /// A harness with a signing key and a witness that trusts it, named in audit.witnesses.
    static func start(
        _ backend: Backend = .sqlite, witnessKey: String? = nil
    ) async throws -> (ActivationHarness, TMPSandbox, String) {
        var (harness, verifierKey) = try await AuditLogTests.start(backend)
        let witness = try await TMPSandbox.start(
            port: 0, witness: WitnessServer(logs: [try #require(TrustedLogKey(verifierKey: verifierKey))]))
        harness.cli.environment["TOKENCTL_AUDIT_WITNESSES"] =
            #"[{"url": "\#(witness.baseURL)", "verifier-key": "\#(witnessKey ?? witness.witness.verifierKey)"}]"#
        return (harness, witness, verifierKey)
    }

    func activations(_ harness: ActivationHarness, _ serials: ClosedRange<Int>) throws {
        try AuditLogTests().activations(harness, serials)
    }

    func publish(_ harness: ActivationHarness) throws -> CLIResult {
        try harness.cli.run("audit", "checkpoint", "--publish")
    }

    func submissions(_ witness: TMPSandbox) -> [String] {
        witness.requests.filter { $0.path == "/add-checkpoint" }.map {
            String(decoding: $0.body.prefix { $0 != 0x0A }, as: UTF8.self)
        }
    }

    @Test(arguments: Backend.allCases)
    func aPublishedCheckpointCarriesTheWitnessCosignature(_ backend: Backend) async throws {
        let (harness, witness, verifierKey) = try await Self.start(backend)
        try await withTeardown({
            try await harness.stop()
            try await witness.shutdown()
        }) {
            try activations(harness, 1...3)
            let first = try publish(harness)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("\n— \(WitnessServer.name) "), "\(first.stdout)")
            let note = harness.cli.write("first.checkpoint", first.stdout)
            #expect(
                try AuditLogTests().independently(["cosignature", witness.witness.verifierKey, note], harness).stdout
                    == "ok\n")
            #expect(try AuditLogTests().independently(["note", verifierKey, note], harness).stdout == "ok\n")

            try activations(harness, 4...6)
            let second = try harness.cli.run("audit", "checkpoint", "--publish", "--json")
            #expect(second.status == 0, "\(second.stderr)")
            let witnesses = try second.jsonObject()["witnesses"] as? [[String: Any]]
            #expect(
                witnesses?.first?["cosigned"] as? Bool == true
                    && witnesses?.first?["url"] as? String == witness.baseURL,
                "\(second.stdout)")
            // The second went from the size the witness cosigned, with the proof.
            #expect(submissions(witness) == ["old 0", "old 6"])
            #expect(witness.witness.cosignedSize(origin: AuditLogTests.origin) == 12)
            // The same size again asks the witness again (from the size it holds, no proof): what
            // it answers in this run is what is reported.
            let again = try publish(harness)
            #expect(again.status == 0 && again.stdout.contains(WitnessServer.name), "\(again.stderr)")
            #expect(submissions(witness) == ["old 0", "old 6", "old 12"])
            // A proof's checkpoint carries it too, and still verifies independently.
            let proof = harness.cli.directory.file("e2.proof"), leaf = harness.cli.directory.file("e2.leaf")
            #expect(
                try harness.cli.run("audit", "prove", "2", "--reveal", "--out", proof, "--leaf-data", leaf).status == 0)
            #expect(try String(contentsOfFile: proof, encoding: .utf8).contains(WitnessServer.name))
            #expect(
                try AuditLogTests().independently(["inclusion", verifierKey, proof, leaf], harness).stdout == "ok\n")
        }
    }

    /// A witness that holds a larger size than the log thinks (its cosignature lost with an
    /// older copy of the database) answers 409; the log asks again from that size.
    @Test func aConflictIsAskedAgainFromTheWitnessSize() async throws {
        let (harness, witness, _) = try await Self.start()
        try await withTeardown({
            try await harness.stop()
            try await witness.shutdown()
        }) {
            try activations(harness, 1...4)
            #expect(try harness.cli.run("audit", "checkpoint").status == 0)
            let copy = try Self.copyDatabase(harness.cli.databasePath)
            #expect(try publish(harness).status == 0)
            try Self.restoreDatabase(copy, to: harness.cli.databasePath)
            try activations(harness, 5...6)
            let published = try publish(harness)
            #expect(published.status == 0, "\(published.stderr)")
            #expect(submissions(witness) == ["old 0", "old 0", "old 8"])
            #expect(witness.witness.cosignedSize(origin: AuditLogTests.origin) == 12)
        }
    }

    /// The database replaced by an older copy than the witness cosigned: refused, named.
    @Test func anOlderCopyOfTheLogIsRefused() async throws {
        let (harness, witness, _) = try await Self.start()
        try await withTeardown({
            try await harness.stop()
            try await witness.shutdown()
        }) {
            try activations(harness, 1...4)
            #expect(try publish(harness).status == 0)
            let copy = try Self.copyDatabase(harness.cli.databasePath)
            try activations(harness, 5...6)
            #expect(try publish(harness).status == 0)
            try Self.restoreDatabase(copy, to: harness.cli.databasePath)
            try activations(harness, 7...7)
            let refused = try harness.cli.run("audit", "checkpoint", "--publish", "--json")
            #expect(refused.status == 65)
            #expect(
                refused.stderr.contains("witness \(witness.baseURL) refused")
                    && refused.stderr.contains("cosigned a tree of 12 rows")
                    && refused.stderr.contains("(audit.witnessRefused)"), "\(refused.stderr)")
            // One JSON object on stdout, naming the outcome; the checkpoint is still signed and stored.
            let object = try refused.jsonObject()
            #expect((object["witnesses"] as? [[String: Any]])?.first?["code"] as? String == "audit.witnessRefused")
            #expect(object["size"] as? Int == 10)
            #expect(witness.witness.cosignedSize(origin: AuditLogTests.origin) == 12)
        }
    }

    /// Rows rewritten with the chain and the tree recomputed, as a superuser would: the
    /// witness refuses the proof from what it cosigned (422).
    @Test func aRewrittenLogIsRefused() async throws {
        let (harness, witness, _) = try await Self.start()
        try await withTeardown({
            try await harness.stop()
            try await witness.shutdown()
        }) {
            try activations(harness, 1...10)
            #expect(try publish(harness).status == 0)
            try AuditLogTests.rewrite(
                harness.cli.databasePath,
                """
                db.execute("UPDATE audit_row SET outcome = 'DECLINED' WHERE seq = 8")
                rechain(db)
                for table in ("audit_tree_node", "audit_tree_leaves", "audit_checkpoint"):
                    for kind in ("update", "delete"):
                        db.execute("DROP TRIGGER IF EXISTS %s_append_only_%s" % (table, kind))
                    db.execute("DELETE FROM " + table)
                """)
            try activations(harness, 11...12)
            let refused = try publish(harness)
            #expect(refused.status == 65)
            #expect(
                refused.stderr.contains("does not accept the consistency proof") && refused.stderr.contains("HTTP 422"),
                "\(refused.stderr)")
            #expect(witness.witness.cosignedSize(origin: AuditLogTests.origin) == 20)
        }
    }

    /// The wrong key for the witness, none configured, a witness that cannot be reached:
    /// each named, nothing stored for it.
    @Test func aWrongKeyAMissingWitnessAndAnUnreachableOneAreNamed() async throws {
        let other = WitnessServer(logs: [])
        let (harness, witness, _) = try await Self.start(witnessKey: other.verifierKey)
        try await withTeardown({
            try await harness.stop()
            try await witness.shutdown()
        }) {
            try activations(harness, 1...2)
            // A witness whose key is not the configured one is a configuration fault (78), not a refusal.
            let wrong = try publish(harness)
            #expect(wrong.status == 78)
            #expect(
                wrong.stderr.contains("is not set up for this log")
                    && wrong.stderr.contains("verifies with the configured key")
                    && wrong.stderr.contains("(audit.notConfigured)"), "\(wrong.stderr)")
            #expect(!(try harness.cli.run("audit", "checkpoint").stdout.contains(WitnessServer.name)))

            let none = try harness.cli.run(
                ["audit", "checkpoint", "--publish"], environment: ["TOKENCTL_AUDIT_WITNESSES": "[]"])
            #expect(none.status == 78 && none.stderr.contains("(audit.notConfigured)"), "\(none.stderr)")
            let closed = try unusedPort()
            let unreachable = try harness.cli.run(
                ["audit", "checkpoint", "--publish"],
                environment: [
                    "TOKENCTL_AUDIT_WITNESSES":
                        #"[{"url": "http://127.0.0.1:\#(closed)", "verifier-key": "\#(witness.witness.verifierKey)"}]"#
                ])
            #expect(
                unreachable.status == 69 && unreachable.stderr.contains("(audit.witnessUnreachable)")
                    && unreachable.stderr.contains("127.0.0.1:\(closed)"), "\(unreachable.stderr)")
            let invalid = try harness.cli.run(
                ["config", "check"], environment: ["TOKENCTL_AUDIT_WITNESSES": #"[{"url": "http://w.example"}]"#])
            #expect(
                invalid.status == 78 && invalid.stderr.contains("TOKENCTL_AUDIT_WITNESSES")
                    && invalid.stderr.contains("(config.invalidValue)"), "\(invalid.stderr)")
            // config check judges each witness's URL as a server's, and names a log key given as a witness's.
            let key = witness.witness.verifierKey, logKey = try verifierKeyOf(harness)
            for (list, expected) in [
                (#"[{"url": "http://witness.bank.test", "verifier-key": "\#(key)"}]"#, "config.insecureURL"),
                (#"[{"url": "https://witness.example.com", "verifier-key": "\#(key)"}]"#, "example.com"),
                (
                    #"[{"url": "\#(witness.baseURL)", "verifier-key": "\#(key)"}, {"url": "\#(witness.baseURL)", "verifier-key": "\#(key)"}]"#,
                    "named twice"
                ),
                (#"[{"url": "\#(witness.baseURL)", "verifier-key": "\#(logKey)"}]"#, "not a log's key"),
            ] {
                let checked = try harness.cli.run(["config", "check"], environment: ["TOKENCTL_AUDIT_WITNESSES": list])
                #expect(checked.status == 78 && checked.stderr.contains(expected), "\(list): \(checked.stderr)")
            }
        }
    }

    /// The service publishes each checkpoint it signs, and the newest one it serves carries
    /// the cosignature; the requests are counted by result.
    @Test func theServicePublishesWhatItSigns() async throws {
        let (harness, witness, _) = try await Self.start()
        try await withTeardown({ try await witness.shutdown() }) {
            let sandbox = harness.sandbox
            try await withTeardown({ try await sandbox.shutdown() }) {
                for number in 1...2 { try harness.add("SN\(number)", "DAPL\(number)000") }
                let service = try ServiceHarness.launch(
                    harness, environment: ["TOKENCTL_AUDIT_CHECKPOINT_INTERVAL_SECONDS": "1"])
                #expect(try service.activate("SN1").status == 200)
                var served = ""
                for _ in 0..<50 where !served.contains(WitnessServer.name) {
                    try await Task.sleep(for: .milliseconds(100))
                    served = try service.request("GET", "/v1/audit/checkpoint").body
                }
                #expect(
                    served.hasPrefix("\(AuditLogTests.origin)\n2\n") && served.contains("\n— \(WitnessServer.name) "),
                    "\(served)")
                let metrics = try service.request("GET", "/metrics").body
                // Asked at start and at every interval since.
                let cosigned = metrics.split(separator: "\n").first {
                    $0.hasPrefix(#"tokenctl_audit_witness_requests_total{result="cosigned"} "#)
                }
                #expect(cosigned.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0 >= 2, "\(metrics)")
                // The last activation, then SIGTERM: the checkpoint at the exit is published too.
                #expect(try service.activate("SN2").status == 200)
                #expect(try service.stop().status == 0)
                #expect(witness.witness.cosignedSize(origin: AuditLogTests.origin) == 4)
                #expect(try harness.cli.run("audit", "checkpoint").stdout.contains(WitnessServer.name))
            }
        }
    }

    /// The log's own verifier key (0x01), as a misconfiguration would put it in a witness's place.
    func verifierKeyOf(_ harness: ActivationHarness) throws -> String {
        let generated = try harness.cli.run(
            "audit", "key", "generate", "--origin", "bank.example/other", "--out",
            harness.cli.directory.file("k\(UUID().uuidString.prefix(6))"))
        return generated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func copyDatabase(_ path: String) throws -> String {
        let copy = path + ".copy"
        let result = try runProgram(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))", path, copy,
            ])
        try #require(result.status == 0, "\(result.output)")
        return copy
    }

    static func restoreDatabase(_ copy: String, to path: String) throws {
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: copy, toPath: path)
    }
}

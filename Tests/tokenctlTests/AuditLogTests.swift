import Foundation
import TestSupport
import Testing

/// The audit as a transparency log through the binary (DESIGN §9): a key, signed
/// checkpoints, proofs that an independent verifier (scripts/tlog-verify.py, Python's
/// Ed25519 and its own RFC 9162 code) accepts, and tampering as one with write access to the
/// database would do it, caught by `audit verify`.
@Suite struct AuditLogTests {
    static let origin = "bank.example/tokenctl-audit"
    static let verifier = repositoryRoot + "/scripts/tlog-verify.py"

    /// A harness with a signing key configured; answers the verifier key.
    static func start(_ backend: Backend, slowDelay: Duration = .seconds(3)) async throws -> (ActivationHarness, String)
    {
        var harness = try await ActivationHarness.start(slowDelay: slowDelay, backend: backend)
        let key = harness.cli.directory.file("signing.key")
        let generated = try harness.cli.run("audit", "key", "generate", "--origin", origin, "--out", key)
        try #require(generated.status == 0, "\(generated.stderr)")
        #expect(fileMode(key) == 0o600)
        #expect(
            !generated.stdout.contains(
                try String(contentsOfFile: key, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        harness.cli.environment["TOKENCTL_AUDIT_ORIGIN"] = origin
        harness.cli.environment["TOKENCTL_AUDIT_SIGNING_KEY_FILE"] = key
        return (harness, generated.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func activations(_ harness: ActivationHarness, _ serials: ClosedRange<Int>) throws {
        for number in serials {
            try harness.add("SN\(number)", "DAPL\(number)000")
            #expect(try harness.activate("SN\(number)").status == 0)
        }
    }

    func checkpoint(_ harness: ActivationHarness, to name: String) throws -> String {
        let result = try harness.cli.run("audit", "checkpoint")
        try #require(result.status == 0, "\(result.stderr)")
        return harness.cli.write(name, result.stdout)
    }

    func independently(_ arguments: [String], _ harness: ActivationHarness) throws -> CLIResult {
        try harness.cli.run(executable: "/usr/bin/python3", [Self.verifier] + arguments)
    }

    /// Checkpoints, an entry's proofs and a consistency proof, each checked by the
    /// independent verifier; `audit verify` on a kept checkpoint and on the stored ones.
    @Test(arguments: Backend.allCases)
    func proofsVerifyWithoutTokenctl(_ backend: Backend) async throws {
        let (harness, verifierKey) = try await Self.start(backend)
        try await withTeardown({ try await harness.stop() }) {
            try activations(harness, 1...5)
            let old = try checkpoint(harness, to: "old.checkpoint")
            #expect(try independently(["note", verifierKey, old], harness).stdout == "ok\n")
            try activations(harness, 6...13)
            let new = try checkpoint(harness, to: "new.checkpoint")
            #expect(try String(contentsOfFile: new, encoding: .utf8).hasPrefix("\(Self.origin)\n26\n"))

            for entry in [1, 4, 13] {
                for row in ["started", "finished"] {
                    let proof = harness.cli.directory.file("e\(entry)\(row).proof"),
                        leaf = harness.cli.directory.file("e\(entry)\(row).leaf")
                    let proved = try harness.cli.run(
                        "audit", "prove", String(entry), "--row", row, "--reveal", "--out", proof, "--leaf-data", leaf)
                    try #require(proved.status == 0, "\(proved.stderr)")
                    #expect(
                        try independently(["inclusion", verifierKey, proof, leaf], harness).stdout == "ok\n",
                        "entry \(entry) \(row)")
                }
            }
            // A proof does not hold for another row's leaf data.
            #expect(
                try independently(
                    [
                        "inclusion", verifierKey, harness.cli.directory.file("e4finished.proof"),
                        harness.cli.directory.file("e4started.leaf"),
                    ], harness
                ).status == 1)
            // An entry proved against the older checkpoint, by size.
            let sized = try harness.cli.run("audit", "prove", "2", "--size", "10", "--json")
            #expect(sized.status == 0, "\(sized.stderr)")
            #expect(
                (try sized.jsonObject()["rows"] as? [[String: Any]])?.allSatisfy { $0["leafData"] is NSNull } == true)

            let consistency = try harness.cli.run("audit", "consistency", "--from", old)
            #expect(consistency.status == 0, "\(consistency.stderr)")
            #expect(
                try independently(
                    ["consistency", verifierKey, old, new, harness.cli.write("c.proof", consistency.stdout)], harness
                ).stdout == "ok\n")

            let kept = try harness.cli.run("audit", "verify", "--checkpoint", old, "--verifier-key", verifierKey)
            #expect(kept.status == 0, "\(kept.stderr)")
            #expect(kept.stdout.contains("at 10 rows"))
            let all = try harness.cli.run("audit", "verify", "--json")
            #expect(try all.jsonObject()["checkpoints"] as? Int == 2, "\(all.stdout) \(all.stderr)")
        }
    }

    /// Without a key or an origin, signing names what is missing (78); a proof without a
    /// checkpoint names the command that makes one (66); another log's key is refused.
    @Test func whatIsMissingIsNamed() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            let unset = try harness.cli.run("audit", "checkpoint")
            #expect(unset.status == 78)
            #expect(
                unset.stderr.contains("(audit.notConfigured)") && unset.stderr.contains("origin is not set"),
                "\(unset.stderr)")
            try activations(harness, 1...1)
            let noCheckpoint = try harness.cli.run("audit", "prove", "1")
            #expect(noCheckpoint.status == 66)
            #expect(
                noCheckpoint.stderr.contains("tokenctl audit checkpoint")
                    && noCheckpoint.stderr.contains("(audit.noCheckpoint)"), "\(noCheckpoint.stderr)")
            let key = harness.cli.directory.file("other.key")
            #expect(
                try harness.cli.run("audit", "key", "generate", "--origin", "other.example/log", "--out", key).status
                    == 0)
            let wrong = try harness.cli.run(
                ["audit", "checkpoint"],
                environment: ["TOKENCTL_AUDIT_ORIGIN": Self.origin, "TOKENCTL_AUDIT_SIGNING_KEY_FILE": key])
            #expect(wrong.status == 78)
            #expect(wrong.stderr.contains("other.example/log's, not audit.origin's"), "\(wrong.stderr)")
            let badOrigin = try harness.cli.run(
                ["audit", "checkpoint"], environment: ["TOKENCTL_AUDIT_ORIGIN": "has space"])
            #expect(badOrigin.status == 78, "\(badOrigin.stderr)")
        }
    }

    /// A row changed and the chain recomputed after it: the chain holds, the checkpoint does
    /// not, and the first changed leaf is named.
    @Test func aRewrittenRowIsFoundByItsLeaf() async throws {
        let (harness, verifierKey) = try await Self.start(.sqlite)
        try await withTeardown({ try await harness.stop() }) {
            // 20 rows: one whole block of 16, whose leaf hashes are stored.
            try activations(harness, 1...10)
            let kept = try checkpoint(harness, to: "kept.checkpoint")
            try Self.rewrite(
                harness.cli.databasePath,
                """
                rows = db.execute("SELECT seq FROM audit_row ORDER BY seq").fetchall()
                db.execute("UPDATE audit_row SET outcome = 'DECLINED' WHERE seq = 8")
                rechain(db)
                """)
            #expect(try harness.cli.run("audit", "verify", "--json").stdout.contains("\"error\""))
            let plain = try harness.cli.run("audit", "verify")
            #expect(plain.status == 65)
            #expect(
                plain.stderr.contains("leaf 7 (row 8)") && plain.stderr.contains("(audit.inconsistent)"),
                "\(plain.stderr)")
            let checked = try harness.cli.run("audit", "verify", "--checkpoint", kept, "--verifier-key", verifierKey)
            #expect(checked.status == 65)
            #expect(checked.stderr.contains("leaf 7 (row 8)"), "\(checked.stderr)")
        }
    }

    /// The newest rows dropped with their chain, or the database replaced by an older copy:
    /// the missing rows are named.
    @Test(arguments: Backend.allCases)
    func aCutLogIsFoundBySize(_ backend: Backend) async throws {
        let (harness, verifierKey) = try await Self.start(backend)
        try await withTeardown({ try await harness.stop() }) {
            try activations(harness, 1...4)
            let kept = try checkpoint(harness, to: "kept.checkpoint")
            if let postgres = harness.postgres {
                // As the tables' owner would: its rights given back, the trigger off.
                let deleted = try postgres.psql(
                    "GRANT DELETE ON audit_row TO CURRENT_USER; ALTER TABLE audit_row DISABLE TRIGGER audit_row_append_only; DELETE FROM audit_row WHERE seq > 5"
                )
                try #require(deleted.status == 0, "\(deleted.output)")
            } else {
                try Self.rewrite(harness.cli.databasePath, "db.execute(\"DELETE FROM audit_row WHERE seq > 5\")")
            }
            #expect(try harness.cli.run("audit", "verify", "--json").status == 65)
            let checked = try harness.cli.run("audit", "verify", "--checkpoint", kept, "--verifier-key", verifierKey)
            #expect(checked.status == 65)
            #expect(
                checked.stderr.contains("signs 8 rows, but the audit has 5")
                    && checked.stderr.contains("(audit.inconsistent)"), "\(checked.stderr)")
            // Another log's verifier key: the signature is refused.
            let other = try harness.cli.run(
                "audit", "key", "generate", "--origin", Self.origin, "--out", harness.cli.directory.file("k2"))
            let refused = try harness.cli.run(
                "audit", "verify", "--checkpoint", kept, "--verifier-key",
                other.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(refused.status == 65)
            #expect(
                refused.stderr.contains("another log's") && refused.stderr.contains("(audit.inconsistent)"),
                "\(refused.stderr)")
        }
    }

    /// Runs Python on the SQLite file as a superuser would: triggers dropped, `body` run,
    /// with `rechain(db)` recomputing the hash chain over the rows as they now are.
    static func rewrite(_ path: String, _ body: String) throws {
        let script = """
            import hashlib, json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            for name in ("audit_row_append_only_update", "audit_row_append_only_delete"):
                db.execute("DROP TRIGGER IF EXISTS " + name)
            def text(row, previous):
                keys = ["attempt", "event", "at", "request", "serial", "passType", "token", "device", "deeplink", "pid", "ownerStart", "outcome", "error", "http", "last4", "comment", "latency"]
                parts = ['"previous": ' + json.dumps(previous)] + ['"%s": %s' % (k, json.dumps(v)) for k, v in zip(keys, row)]
                return ("{" + ", ".join(parts) + "}").encode()
            def rechain(db):
                previous = "0" * 64
                for row in db.execute("SELECT seq, attempt_id, event, at, request_id, serial_number, pass_type_identifier, token_unique_reference, device_label, deeplink_hash, owner_pid, owner_start, outcome, error_code, http_status, card_last4, comment, latency_ms FROM audit_row ORDER BY seq").fetchall():
                    digest = hashlib.sha256(text(row[1:], previous)).hexdigest()
                    db.execute("UPDATE audit_row SET previous_hash = ?, hash = ? WHERE seq = ?", (previous, digest, row[0]))
                    previous = digest
            \(body)
            db.commit()
            """
        let result = try runProgram("/usr/bin/env", ["python3", "-c", script, path])
        try #require(result.status == 0, "\(result.output)")
    }
}

/// The service signs checkpoints on its own (DESIGN §9): every interval when the audit grew,
/// and at a clean exit after the last answer, so that the newest checkpoint holds every row.
@Suite struct ServiceCheckpointTests {
    @Test func theServiceSignsWhileItRunsAndAtItsExit() async throws {
        var activation = try await ActivationHarness.start()
        let sandbox = activation.sandbox
        try await withTeardown({ try await sandbox.shutdown() }) {
            let key = activation.cli.directory.file("signing.key")
            let generated = try activation.cli.run(
                "audit", "key", "generate", "--origin", AuditLogTests.origin, "--out", key)
            try #require(generated.status == 0)
            activation.cli.environment["TOKENCTL_AUDIT_ORIGIN"] = AuditLogTests.origin
            activation.cli.environment["TOKENCTL_AUDIT_SIGNING_KEY_FILE"] = key
            for number in 1...3 { try activation.add("SN\(number)", "DAPL\(number)000") }
            let service = try ServiceHarness.launch(
                activation, environment: ["TOKENCTL_AUDIT_CHECKPOINT_INTERVAL_SECONDS": "1"])
            #expect(try service.activate("SN1").status == 200)
            #expect(try service.activate("SN2").status == 200)
            // Within two intervals, a checkpoint of the four rows.
            var signed = ""
            for _ in 0..<40 where !signed.hasPrefix("\(AuditLogTests.origin)\n4\n") {
                try await Task.sleep(for: .milliseconds(100))
                signed = try service.request("GET", "/v1/audit/checkpoint").body
            }
            #expect(signed.hasPrefix("\(AuditLogTests.origin)\n4\n"), "\(signed)")
            let metrics = try service.request("GET", "/metrics").body
            #expect(
                metrics.contains(#"tokenctl_audit_checkpoints_total{result="signed"}"#)
                    && metrics.contains("tokenctl_audit_tree_size 4"), "\(metrics)")
            // The last activation, then SIGTERM: the checkpoint at the exit holds it.
            #expect(try service.activate("SN3").status == 200)
            let stopped = try service.stop()
            #expect(stopped.status == 0, "\(stopped.stderr)")
            let proved = try activation.cli.run("audit", "prove", "3", "--json")
            #expect(proved.status == 0, "\(proved.stderr)")
            #expect(
                (try proved.jsonObject()["checkpoint"] as? String)?.hasPrefix("\(AuditLogTests.origin)\n6\n") == true)
            let checked = try activation.cli.run(
                "audit", "verify", "--checkpoint", activation.cli.write("signed", signed), "--verifier-key",
                generated.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(checked.status == 0, "\(checked.stderr)")
        }
    }

    /// A log that is named but whose key cannot be used stops the service at start (78).
    @Test func aNamedLogWithoutItsKeyStopsTheStart() async throws {
        let activation = try await ActivationHarness.start()
        try await withTeardown({ try await activation.stop() }) {
            let result = try activation.cli.run(
                ["serve", "--socket", activation.cli.directory.file("s.sock")],
                environment: ["TOKENCTL_AUDIT_ORIGIN": AuditLogTests.origin])
            #expect(result.status == 78)
            #expect(
                result.stderr.contains("(audit.notConfigured)")
                    && result.stderr.contains("audit.signing-key-file is not set"), "\(result.stderr)")
        }
    }
}

/// Checkpoints signed while other processes write, and after a batch killed mid-way: every
/// checkpoint holds against the final rows, and the final tree extends each (DESIGN §9:
/// a checkpoint never sees a size whose rows are not all committed).
@Suite struct CheckpointConcurrencyTests {
    @Test(arguments: Backend.allCases)
    func checkpointsHoldWhileTwoBatchesWrite(_ backend: Backend) async throws {
        let (harness, verifierKey) = try await AuditLogTests.start(backend)
        try await withTeardown({ try await harness.stop() }) {
            let passes = (1...240).map { "SNC\($0),DAPLC\(String(format: "%012d", $0))" }.joined(separator: "\n")
            #expect(
                try harness.cli.run(
                    "wallet", "import",
                    harness.cli.write("passes.csv", "serialNumber,deviceAccountIdentifier\n" + passes + "\n")
                ).status == 0)
            let batches = try (0..<2).map { half in
                let lines =
                    (1...120).map { "mybank://activate?serialNumber=SNC\(half * 120 + $0)" }.joined(separator: "\n")
                    + "\n"
                return try harness.cli.start(
                    ["activate", "--batch", harness.cli.write("batch\(half).txt", lines), "--concurrency", "4"],
                    environment: ["TOKENCTL_DATABASE_HOST_ID": "host-\(half)"])
            }
            var kept: [String] = []
            while batches.contains(where: { $0.process.isRunning }) {
                let signed = try harness.cli.run("audit", "checkpoint")
                #expect(signed.status == 0, "\(signed.stderr)")
                kept.append(harness.cli.write("kept\(kept.count)", signed.stdout))
            }
            for batch in batches { #expect(try batch.finish().status == 0) }
            let final = try harness.cli.run("audit", "checkpoint")
            #expect(final.stdout.hasPrefix("\(AuditLogTests.origin)\n480\n"), "\(final.stdout)")
            let finalFile = harness.cli.write("final", final.stdout)
            let verified = try harness.cli.run("audit", "verify", "--json")
            #expect(verified.status == 0, "\(verified.stderr)")
            #expect(try verified.jsonObject()["checkpoints"] as? Int ?? 0 >= 2)
            for checkpoint in kept {
                let checked = try harness.cli.run(
                    "audit", "verify", "--checkpoint", checkpoint, "--verifier-key", verifierKey)
                #expect(checked.status == 0, "\(checked.stderr)")
                // The empty tree (signed before the first row) and the final tree need no proof.
                let size = try String(contentsOfFile: checkpoint, encoding: .utf8).split(separator: "\n")[1]
                guard size != "0", size != "480" else { continue }
                let proof = try harness.cli.run("audit", "consistency", "--from", checkpoint)
                #expect(proof.status == 0, "\(proof.stderr)")
                let independent = try harness.cli.run(
                    executable: "/usr/bin/python3",
                    [
                        AuditLogTests.verifier, "consistency", verifierKey, checkpoint, finalFile,
                        harness.cli.write("p", proof.stdout),
                    ])
                #expect(independent.stdout == "ok\n", "\(independent.stdout)")
            }
        }
    }

    /// A batch killed with SIGKILL leaves attempts open; the log's checkpoint covers the rows
    /// that were committed, and the next activation's rows extend it.
    @Test func aKilledBatchLeavesALogThatHolds() async throws {
        let (harness, verifierKey) = try await AuditLogTests.start(.sqlite)
        try await withTeardown({ try await harness.stop() }) {
            let passes = (1...60).map { "SNK\($0),\($0 % 3 == 0 ? "SBXSLOW" : "DAPLK")\(String(format: "%012d", $0))" }
                .joined(separator: "\n")
            #expect(
                try harness.cli.run(
                    "wallet", "import",
                    harness.cli.write("passes.csv", "serialNumber,deviceAccountIdentifier\n" + passes + "\n")
                ).status == 0)
            let lines = (1...60).map { "mybank://activate?serialNumber=SNK\($0)" }.joined(separator: "\n") + "\n"
            let batch = try harness.cli.start([
                "activate", "--batch", harness.cli.write("batch.txt", lines), "--concurrency", "4",
            ])
            try await Task.sleep(for: .milliseconds(1500))
            kill(batch.process.processIdentifier, SIGKILL)
            batch.process.waitUntilExit()
            let signed = try harness.cli.run("audit", "checkpoint")
            #expect(signed.status == 0, "\(signed.stderr)")
            let kept = harness.cli.write("kept", signed.stdout)
            // The next activation of a killed attempt's pass closes it (UNKNOWN) and writes on.
            #expect(try harness.cli.run("activate", "mybank://activate?serialNumber=SNK3").status != 0 || true)
            #expect(try harness.cli.run("audit", "checkpoint").status == 0)
            let checked = try harness.cli.run("audit", "verify", "--checkpoint", kept, "--verifier-key", verifierKey)
            #expect(checked.status == 0, "\(checked.stderr)")
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }
}

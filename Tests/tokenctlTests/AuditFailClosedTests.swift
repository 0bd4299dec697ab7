import Foundation
import Sandbox
import TestSupport
import Testing

/// The log fails closed (DESIGN §9, §10's "a failover that lost rows"), through the binary:
/// a log cut or forked below what it signed is never signed again; `--publish` asks every
/// witness in every run; a rotated origin signs anew; silent witnesses cost one timeout, side
/// by side; a copy of a cut log copies nothing; and the files an auditor passes are input.
@Suite struct AuditFailClosedTests {
    func activations(_ harness: ActivationHarness, _ serials: ClosedRange<Int>) throws {
        try AuditLogTests().activations(harness, serials)
    }

    /// Deletes the audit rows after `seq`, as one with the tables' rights would (triggers off).
    static func cut(_ harness: ActivationHarness, after seq: Int) throws {
        if let postgres = harness.postgres {
            let deleted = try postgres.psql(
                "GRANT DELETE ON audit_row TO CURRENT_USER; ALTER TABLE audit_row DISABLE TRIGGER audit_row_append_only; DELETE FROM audit_row WHERE seq > \(seq)"
            )
            try #require(deleted.status == 0, "\(deleted.output)")
        } else {
            try AuditLogTests.rewrite(
                harness.cli.databasePath, "db.execute(\"DELETE FROM audit_row WHERE seq > \(seq)\")")
        }
    }

    /// A log cut below its newest checkpoint is refused (65, both sizes named), and stays
    /// refused once new rows pass the old size: the tree at the signed size is another.
    @Test(arguments: Backend.allCases)
    func aCutLogIsNeverSignedAgain(_ backend: Backend) async throws {
        let (harness, verifierKey) = try await AuditLogTests.start(backend)
        try await withTeardown({ try await harness.stop() }) {
            try activations(harness, 1...10)
            let kept = try AuditLogTests().checkpoint(harness, to: "kept.checkpoint")
            try Self.cut(harness, after: 16)
            let refused = try harness.cli.run("audit", "checkpoint")
            #expect(refused.status == 65, "\(refused.stdout)")
            #expect(
                refused.stderr.contains("has 16 rows") && refused.stderr.contains("20 rows")
                    && refused.stderr.contains("(audit.inconsistent)"), "\(refused.stderr)")
            // New rows past the signed size: a fork, still refused.
            try activations(harness, 11...13)
            let forked = try harness.cli.run("audit", "checkpoint", "--json")
            #expect(forked.status == 65 && forked.stdout.contains("audit.inconsistent"), "\(forked.stdout)")
            #expect(try harness.cli.run("audit", "verify").status == 65)
            let checked = try harness.cli.run("audit", "verify", "--checkpoint", kept, "--verifier-key", verifierKey)
            #expect(checked.status == 65, "\(checked.stderr)")
            // Nothing was stored past the kept checkpoint.
            let newest = try harness.cli.run("audit", "prove", "1", "--json")
            #expect(
                (try newest.jsonObject()["checkpoint"] as? String)?.hasPrefix("\(AuditLogTests.origin)\n20\n") == true,
                "\(newest.stdout)")
        }
    }

    /// A database restored from a backup older than what a witness cosigned: `--publish`
    /// asks the witness again and reports the refusal, never a stored "cosigned".
    @Test func aRestoredBackupIsCaughtByTheWitnessOnEveryPublish() async throws {
        let (harness, witness, _) = try await WitnessPublishTests.start()
        try await withTeardown({
            try await harness.stop()
            try await witness.shutdown()
        }) {
            try activations(harness, 1...14)
            #expect(try harness.cli.run("audit", "checkpoint", "--publish").status == 0)
            let backup = try WitnessPublishTests.copyDatabase(harness.cli.databasePath)
            try activations(harness, 15...15)
            #expect(try harness.cli.run("audit", "checkpoint", "--publish").status == 0)
            try WitnessPublishTests.restoreDatabase(backup, to: harness.cli.databasePath)
            let published = try harness.cli.run("audit", "checkpoint", "--publish", "--json")
            #expect(published.status == 65, "\(published.stderr)")
            let reported = try #require((try published.jsonObject()["witnesses"] as? [[String: Any]])?.first)
            #expect(
                reported["cosigned"] as? Bool == false && reported["stored"] as? Bool == true
                    && reported["code"] as? String == "audit.witnessRefused", "\(reported)")
            #expect(published.stderr.contains("cosigned a tree of 30 rows"), "\(published.stderr)")

            // An unreachable witness is not reported as cosigned either, though a cosignature is stored.
            let closed = try unusedPort()
            let unreachable = try harness.cli.run(
                ["audit", "checkpoint", "--publish", "--json"],
                environment: [
                    "TOKENCTL_AUDIT_WITNESSES":
                        #"[{"url": "http://127.0.0.1:\#(closed)", "verifier-key": "\#(witness.witness.verifierKey)"}]"#
                ])
            #expect(unreachable.status == 69, "\(unreachable.stderr)")
            let named = try #require((try unreachable.jsonObject()["witnesses"] as? [[String: Any]])?.first)
            #expect(named["cosigned"] as? Bool == false && named["stored"] as? Bool == true, "\(named)")
        }
    }

    /// A new origin and key, as operations.md's rotation says: signed at once at the same
    /// size, verifiable with the new key; a consistency proof across the two origins is
    /// refused; a key file that does not fit the origin, or is lost, is named.
    @Test(arguments: Backend.allCases)
    func aRotatedKeySignsTheNewLogAtOnce(_ backend: Backend) async throws {
        let (started, oldVerifier) = try await AuditLogTests.start(backend)
        try await withTeardown({ try await started.stop() }) {
            var harness = started
            try activations(harness, 1...3)
            let old = try AuditLogTests().checkpoint(harness, to: "old.checkpoint")
            let newOrigin = "bank.example/tokenctl-audit-2027"
            let key = harness.cli.directory.file("new.key")
            let generated = try harness.cli.run("audit", "key", "generate", "--origin", newOrigin, "--out", key)
            try #require(generated.status == 0, "\(generated.stderr)")
            harness.cli.environment["TOKENCTL_AUDIT_ORIGIN"] = newOrigin
            harness.cli.environment["TOKENCTL_AUDIT_SIGNING_KEY_FILE"] = key
            let rotated = try harness.cli.run("audit", "checkpoint", "--json")
            #expect(rotated.status == 0, "\(rotated.stderr)")
            let object = try rotated.jsonObject()
            #expect(
                object["new"] as? Bool == true && object["origin"] as? String == newOrigin
                    && object["size"] as? Int == 6,
                "\(rotated.stdout)")
            let note = harness.cli.write("new.checkpoint", object["checkpoint"] as? String ?? "")
            #expect(
                try AuditLogTests().independently(
                    ["note", generated.stdout.trimmingCharacters(in: .whitespacesAndNewlines), note], harness
                ).stdout == "ok\n")
            // Signing again at the same size answers the new log's stored checkpoint.
            let again = try harness.cli.run("audit", "checkpoint", "--json")
            #expect(
                try again.jsonObject()["new"] as? Bool == false && again.stdout.contains(newOrigin), "\(again.stdout)")
            // The proof across origins proves nothing: refused, and the bridge named.
            try activations(harness, 4...4)
            #expect(try harness.cli.run("audit", "checkpoint").status == 0)
            let across = try harness.cli.run("audit", "consistency", "--from", old, "--verifier-key", oldVerifier)
            #expect(
                across.status == 65
                    && across.stderr.contains("of log \(AuditLogTests.origin), the newer of \(newOrigin)"),
                "\(across.stderr)")
            #expect(try harness.cli.run("audit", "verify").status == 0)

            // The old key with the new origin: the key file is the wrong one (78 config.fileInvalid).
            let mismatched = try harness.cli.run(
                ["audit", "checkpoint"],
                environment: ["TOKENCTL_AUDIT_SIGNING_KEY_FILE": harness.cli.directory.file("signing.key")])
            #expect(
                mismatched.status == 78 && mismatched.stderr.contains("(config.fileInvalid)"), "\(mismatched.stderr)")
            // A lost key file: a lost key means a new log.
            let lost = try harness.cli.run(
                ["audit", "checkpoint"],
                environment: ["TOKENCTL_AUDIT_SIGNING_KEY_FILE": harness.cli.directory.file("gone.key")])
            #expect(lost.status == 78 && lost.stderr.contains("start a new log"), "\(lost.stderr)")
        }
    }

    /// Witnesses that accept and never answer: asked side by side, each within
    /// audit.witness-timeout-ms, so two cost one timeout, not two.
    @Test func silentWitnessesCostOneTimeoutSideBySide() async throws {
        let (harness, _) = try await AuditLogTests.start(.sqlite)
        try await withTeardown({ try await harness.stop() }) {
            try activations(harness, 1...2)
            let silent = try SilentServer.start(count: 2)
            defer { silent.stop() }
            let witnessKey = WitnessServer(logs: []).verifierKey
            let list = silent.ports.map { #"{"url": "http://127.0.0.1:\#($0)", "verifier-key": "\#(witnessKey)"}"# }
                .joined(
                    separator: ", ")
            let started = ContinuousClock.now
            let published = try harness.cli.run(
                ["audit", "checkpoint", "--publish", "--json"],
                environment: [
                    "TOKENCTL_AUDIT_WITNESSES": "[\(list)]", "TOKENCTL_AUDIT_WITNESS_TIMEOUT_MS": "1500",
                ])
            let took = ContinuousClock.now - started
            #expect(published.status == 69, "\(published.stderr)")
            #expect((try published.jsonObject()["witnesses"] as? [[String: Any]])?.count == 2)
            #expect(took < .milliseconds(2900), "two silent witnesses took \(took)")
            let shown = try harness.cli.run(
                ["config", "show", "--json"], environment: ["TOKENCTL_AUDIT_WITNESS_TIMEOUT_MS": "1500"])
            #expect(shown.stdout.contains("\"audit.witness-timeout-ms\": {\"value\": 1500"), "\(shown.stdout)")
        }
    }

    /// A source whose checkpoints do not verify is not copied: the target stays empty, and
    /// a copy of the log made whole again goes through.
    @Test func aCutSourceCopiesNothing() async throws {
        let (harness, _) = try await AuditLogTests.start(.sqlite)
        try await withTeardown({ try await harness.stop() }) {
            try activations(harness, 1...20)
            #expect(try harness.cli.run("audit", "checkpoint").status == 0)
            try Self.cut(harness, after: 36)
            let target = try TestPostgres.makeDatabase()
            let copied = try harness.cli.run(
                ["db", "copy", "--to", target.url, "--json"],
                environment: ["TOKENCTL_DATABASE_PASSWORD": TestPostgres.password])
            #expect(
                copied.status == 65 && copied.stdout.contains("audit.inconsistent"), "\(copied.stdout) \(copied.stderr)"
            )
            let rows = try target.psql("SELECT (SELECT count(*) FROM pass_record) + (SELECT count(*) FROM audit_row)")
            #expect(
                rows.status != 0 || rows.output.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("0"),
                "\(rows.output)")
        }
    }

    /// Checkpoints and cosignatures stored before they were kept by log (the schema before
    /// SQLite's v12, PostgreSQL's v9) survive the migration: each found under its origin and
    /// key, the cosigned note whole, and the log goes on signing.
    @Test(arguments: Backend.allCases)
    func storedCheckpointsSurviveTheMigrationToLogsByOrigin(_ backend: Backend) async throws {
        let (harness, witness, verifierKey) = try await WitnessPublishTests.start(backend)
        try await withTeardown({
            try await harness.stop()
            try await witness.shutdown()
        }) {
            try activations(harness, 1...3)
            let published = try harness.cli.run("audit", "checkpoint", "--publish")
            try #require(published.status == 0, "\(published.stderr)")
            if let postgres = harness.postgres {
                // The v8 schema: checkpoints by size alone, cosignatures without their origin.
                let down = try postgres.psql(
                    """
                    ALTER TABLE audit_checkpoint DROP CONSTRAINT audit_checkpoint_pkey;
                    DROP INDEX audit_checkpoint_size;
                    ALTER TABLE audit_checkpoint DROP COLUMN origin, DROP COLUMN key_id, DROP COLUMN id, ADD PRIMARY KEY (size);
                    ALTER TABLE audit_cosignature DROP CONSTRAINT audit_cosignature_pkey;
                    DROP INDEX audit_cosignature_witness;
                    ALTER TABLE audit_cosignature DROP COLUMN origin, ADD PRIMARY KEY (size, witness);
                    CREATE INDEX audit_cosignature_witness ON audit_cosignature (witness, size);
                    DELETE FROM tokenctl_schema WHERE version = 9;
                    """)
                try #require(down.status == 0, "\(down.output)")
                #expect(try harness.cli.run("audit", "verify").status == 74)
                let migrated = try harness.cli.run("db", "migrate")
                #expect(
                    migrated.status == 0 && migrated.stdout.contains("v9-checkpoints-by-log"),
                    "\(migrated.stdout)\(migrated.stderr)")
            } else {
                try AuditLogTests.rewrite(
                    harness.cli.databasePath,
                    """
                    checkpoints = db.execute("SELECT size, note FROM audit_checkpoint").fetchall()
                    cosignatures = db.execute("SELECT witness, size, line, time FROM audit_cosignature").fetchall()
                    db.execute("DROP TABLE audit_checkpoint")
                    db.execute("DROP TABLE audit_cosignature")
                    db.execute("CREATE TABLE audit_checkpoint (size INTEGER PRIMARY KEY, note TEXT NOT NULL)")
                    db.execute("CREATE TABLE audit_cosignature (witness TEXT NOT NULL, size INTEGER NOT NULL, line TEXT NOT NULL, time INTEGER NOT NULL, PRIMARY KEY (size, witness)) WITHOUT ROWID")
                    db.executemany("INSERT INTO audit_checkpoint VALUES (?, ?)", checkpoints)
                    db.executemany("INSERT INTO audit_cosignature VALUES (?, ?, ?, ?)", cosignatures)
                    db.execute("DELETE FROM grdb_migrations WHERE identifier = 'v12-checkpoints-by-log'")
                    db.execute("PRAGMA user_version = 11")
                    """)
                let migrated = try harness.cli.run("db", "migrate")
                #expect(
                    migrated.status == 0 && migrated.stdout.contains("v12-checkpoints-by-log"),
                    "\(migrated.stdout)\(migrated.stderr)")
            }
            // The stored note with its cosignature, as before.
            let served = try harness.cli.run("audit", "prove", "1", "--json")
            #expect(served.status == 0, "\(served.stderr)")
            #expect((try served.jsonObject()["checkpoint"] as? String) == published.stdout, "\(served.stdout)")
            #expect(try harness.cli.run("audit", "verify").status == 0)
            // Signing at the same size answers the stored one; the log and its witness go on.
            let again = try harness.cli.run("audit", "checkpoint", "--json")
            #expect(try again.jsonObject()["new"] as? Bool == false, "\(again.stdout)\(again.stderr)")
            try activations(harness, 4...4)
            let next = try harness.cli.run("audit", "checkpoint", "--publish", "--json")
            let reported = try next.jsonObject()["witnesses"] as? [[String: Any]]
            #expect(next.status == 0 && reported?.first?["cosigned"] as? Bool == true, "\(next.stdout)\(next.stderr)")
            _ = verifierKey
        }
    }

    /// The files an auditor passes: garbage is input (64); another log's checkpoint is named
    /// as such (65); a checkpoint larger than the log is a cut log (65); a checkpoint whose
    /// signature does not verify is refused before any proof.
    @Test func whatAnAuditorPassesIsJudgedAsInput() async throws {
        let (harness, verifierKey) = try await AuditLogTests.start(.sqlite)
        try await withTeardown({ try await harness.stop() }) {
            try activations(harness, 1...3)
            let kept = try AuditLogTests().checkpoint(harness, to: "kept.checkpoint")
            let garbage = harness.cli.write("garbage", "not a checkpoint\n")
            let unreadable = try harness.cli.run(
                "audit", "verify", "--checkpoint", garbage, "--verifier-key", verifierKey)
            #expect(unreadable.status == 64 && unreadable.stderr.contains("(usage.invalid)"), "\(unreadable.stderr)")
            let unsigned = harness.cli.write(
                "unsigned", "\(AuditLogTests.origin)\n6\n\(Data(repeating: 0, count: 32).base64EncodedString())\n")
            #expect(
                try harness.cli.run("audit", "verify", "--checkpoint", unsigned, "--verifier-key", verifierKey).status
                    == 64
            )
            #expect(try harness.cli.run("audit", "consistency", "--from", garbage).status == 64)

            let otherKey = harness.cli.directory.file("other.key")
            let other = try harness.cli.run(
                "audit", "key", "generate", "--origin", "other.example/log", "--out", otherKey)
            let foreign = try harness.cli.run(
                ["audit", "checkpoint"],
                environment: [
                    "TOKENCTL_AUDIT_ORIGIN": "other.example/log", "TOKENCTL_AUDIT_SIGNING_KEY_FILE": otherKey,
                ])
            #expect(foreign.status == 0, "\(foreign.stderr)")
            let foreignFile = harness.cli.write("foreign", foreign.stdout)
            let named = try harness.cli.run(
                "audit", "verify", "--checkpoint", foreignFile, "--verifier-key", verifierKey)
            #expect(named.status == 65 && named.stderr.contains("another log's"), "\(named.stderr)")
            _ = other

            // A kept checkpoint of more rows than the log now has: cut (65), not "no checkpoint".
            try activations(harness, 4...5)
            let larger = try AuditLogTests().checkpoint(harness, to: "larger.checkpoint")
            try Self.cut(harness, after: 6)
            let cut = try harness.cli.run("audit", "consistency", "--from", larger)
            #expect(cut.status == 65 && cut.stderr.contains("cut"), "\(cut.stderr)")
            _ = kept
        }
    }

    /// `prove --row started` within a checkpoint that the finished row lies past (an
    /// attempt killed mid-request, closed by the next activation after the checkpoint); a
    /// leaf-data path that cannot be written is named before any proof is printed; the size
    /// asked for is not called the newest.
    @Test func aStartedRowIsProvedInsideAnEarlierCheckpoint() async throws {
        let (harness, _) = try await AuditLogTests.start(.sqlite, slowDelay: .seconds(30))
        try await withTeardown({ try await harness.stop() }) {
            try activations(harness, 1...2)
            try harness.add("SNK", "SBXSLOW000000000001")
            let sent = harness.sandbox.activationRequestCount
            let slow = try harness.cli.start(
                ["activate", "mybank://activate?serialNumber=SNK"], environment: ["TOKENCTL_TMP_TIMEOUT_MS": "30000"])
            // Its started row (row 5) committed and its request at TMP, which holds it: then killed.
            harness.waitForRequests(sent + 1)
            kill(slow.process.processIdentifier, SIGKILL)
            slow.process.waitUntilExit()
            let signed = try harness.cli.run("audit", "checkpoint")
            #expect(
                signed.status == 0 && signed.stdout.hasPrefix("\(AuditLogTests.origin)\n5\n"),
                "\(signed.stdout)\(signed.stderr)")
            _ = try harness.cli.run(
                ["activate", "mybank://activate?serialNumber=SNK"], environment: ["TOKENCTL_TMP_TIMEOUT_MS": "500"])
            #expect(try harness.cli.run("audit", "checkpoint").status == 0)
            let started = try harness.cli.run("audit", "prove", "3", "--row", "started", "--size", "5")
            #expect(
                started.status == 0 && started.stdout.hasPrefix("c2sp.org/tlog-proof@v1\nindex 4\n"),
                "\(started.stdout)\(started.stderr)")
            let finished = try harness.cli.run("audit", "prove", "3", "--row", "finished", "--size", "5")
            #expect(
                finished.status == 66 && finished.stderr.contains("--size 5") && !finished.stderr.contains("newest"),
                "\(finished.stderr)")
            let missing = try harness.cli.run("audit", "prove", "2", "--reveal", "--leaf-data", "/nonexistent/x")
            #expect(
                missing.status == 64 && missing.stdout.isEmpty && missing.stderr.contains("--leaf-data"),
                "\(missing.stdout)\(missing.stderr)")
        }
    }

    /// `audit key generate` writes no private key to a file named `-`, and takes no origin
    /// that would read otherwise than it signs.
    @Test func aKeyIsGeneratedOnlyWhereAndAsItShould() async throws {
        let cli = try CLI()
        let dash = try cli.run("audit", "key", "generate", "--origin", "bank.example/log", "--out", "-")
        #expect(dash.status == 64 && !FileManager.default.fileExists(atPath: cli.directory.file("-")), "\(dash.stderr)")
        let override = try cli.run(
            "audit", "key", "generate", "--origin", "bank.example/\u{202E}gol", "--out", cli.directory.file("k1"))
        #expect(override.status == 64, "\(override.stderr)")
        let long = try cli.run(
            "audit", "key", "generate", "--origin", String(repeating: "a", count: 256), "--out",
            cli.directory.file("k2"))
        #expect(long.status == 64, "\(long.stderr)")
        let fine = try cli.run(
            "audit", "key", "generate", "--origin", String(repeating: "a", count: 255), "--out",
            cli.directory.file("k3"))
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}

/// The service on a log that fails closed: a cut log is signed no more, `/readyz` names
/// `audit` and `audit.logCut` is logged; silent witnesses do not hold its stop.
@Suite struct ServiceFailClosedTests {
    @Test(arguments: Backend.allCases)
    func aCutLogStopsTheServiceSigningAndNamesAudit(_ backend: Backend) async throws {
        let (harness, _) = try await AuditLogTests.start(backend)
        let sandbox = harness.sandbox
        try await withTeardown({ try await sandbox.shutdown() }) {
            try AuditLogTests().activations(harness, 1...10)
            #expect(try harness.cli.run("audit", "checkpoint").status == 0)
            try AuditFailClosedTests.cut(harness, after: 16)
            try harness.add("SNCUT", "DAPLCUT0000001")
            let service = try ServiceHarness.launch(
                harness, environment: ["TOKENCTL_AUDIT_CHECKPOINT_INTERVAL_SECONDS": "1"])
            var ready = try service.request("GET", "/readyz")
            for _ in 0..<50 where ready.status == 200 {
                try await Task.sleep(for: .milliseconds(100))
                ready = try service.request("GET", "/readyz")
            }
            #expect(
                ready.status == 503 && ready.body.contains("\"audit\"") && ready.body.contains("audit.inconsistent"),
                "\(ready.body)")
            // Activations still run and are audited; the log is still not signed.
            #expect(try service.activate("SNCUT").status == 200)
            try await Task.sleep(for: .milliseconds(1500))
            #expect(try service.request("GET", "/v1/audit/checkpoint").body.hasPrefix("\(AuditLogTests.origin)\n20\n"))
            let metrics = try service.request("GET", "/metrics").body
            #expect(metrics.contains(#"tokenctl_audit_checkpoints_total{result="failed"}"#), "\(metrics)")
            let stopped = try service.stop()
            #expect(stopped.status == 0)
            #expect(
                stopped.stderr.contains("audit.logCut") && stopped.stderr.contains("has 16 rows"),
                "\(stopped.stderr.suffix(3000))")
        }
    }

    /// Two witnesses that accept and never answer: asked side by side within the timeout, so
    /// the stop takes about one timeout, not one each.
    @Test func silentWitnessesDoNotHoldTheStop() async throws {
        let (harness, _) = try await AuditLogTests.start(.sqlite)
        let sandbox = harness.sandbox
        try await withTeardown({ try await sandbox.shutdown() }) {
            let silent = try SilentServer.start(count: 2)
            defer { silent.stop() }
            let witnessKey = WitnessServer(logs: []).verifierKey
            let list = silent.ports.map { #"{"url": "http://127.0.0.1:\#($0)", "verifier-key": "\#(witnessKey)"}"# }
                .joined(
                    separator: ", ")
            try harness.add("SNW1", "DAPLW00000001")
            let service = try ServiceHarness.launch(
                harness,
                environment: [
                    "TOKENCTL_AUDIT_WITNESSES": "[\(list)]", "TOKENCTL_AUDIT_WITNESS_TIMEOUT_MS": "2000",
                    "TOKENCTL_AUDIT_CHECKPOINT_INTERVAL_SECONDS": "60",
                ])
            #expect(try service.activate("SNW1").status == 200)
            let started = ContinuousClock.now
            let stopped = try service.stop()
            let took = ContinuousClock.now - started
            #expect(stopped.status == 0, "\(stopped.stderr.suffix(2000))")
            #expect(took < .seconds(8), "the stop took \(took)")
            #expect(stopped.stderr.contains("audit.witnessFailed"), "\(stopped.stderr.suffix(2000))")
        }
    }
}

/// Loopback listeners that accept connections and never answer (a witness gone silent),
/// run as the tests run every program (the suite's own spawner and reaper, not Foundation's
/// Process, whose wait spins when another reaper took the child).
final class SilentServer: @unchecked Sendable {
    let ports: [Int]
    private let running: RunningCLI
    /// Holds the directory of its output while it runs.
    private let cli: CLI

    private init(ports: [Int], running: RunningCLI, cli: CLI) {
        self.ports = ports
        self.running = running
        self.cli = cli
    }

    static func start(count: Int) throws -> SilentServer {
        let script = """
            import select, socket, sys, time
            servers = []
            for _ in range(int(sys.argv[1])):
                s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16); servers.append(s)
            print(" ".join(str(s.getsockname()[1]) for s in servers), flush=True)
            held = []
            deadline = time.time() + 60
            while time.time() < deadline:
                ready, _, _ = select.select(servers, [], [], 0.5)
                for s in ready:
                    held.append(s.accept()[0])
            """
        let cli = CLI()
        let running = try cli.start(["-c", script, String(count)], executable: "/usr/bin/python3")
        var ports: [Int] = []
        for _ in 0..<200 where ports.count < count {
            let text = (try? String(contentsOfFile: running.outPath, encoding: .utf8)) ?? ""
            if text.hasSuffix("\n") { ports = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) } }
            if ports.count < count { usleep(25_000) }
        }
        return SilentServer(ports: ports, running: running, cli: cli)
    }

    func stop() {
        kill(running.process.processIdentifier, SIGKILL)
        running.process.waitUntilExit()
    }
}

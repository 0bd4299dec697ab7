import Foundation
import TestSupport
import Testing

@Suite struct ConfigurationAndDatabaseTests {
    let cli = CLI()

    /// The options every command takes are taken by every command (a script passes them to
    /// all), ignored where unused: the key generator, the sandbox, the exit-codes page.
    @Test func globalOptionsAreGlobal() throws {
        let cli = CLI()
        let database = cli.directory.file("g.sqlite")
        let key = try cli.run(
            "--database", database, "audit", "key", "generate", "--origin", "bank.example/log", "--out",
            cli.directory.file("g.key"))
        #expect(key.status == 0, "\(key.stderr)")
        let sandbox = try cli.run("--database", database, "--log-level", "info", "sandbox", "--help")
        #expect(sandbox.status == 0 && sandbox.stdout.contains("witness"), "\(sandbox.stderr)")
        let after = try cli.run("sandbox", "--database", database, "--help")
        #expect(after.status == 0, "\(after.stderr)")
        #expect(try cli.run("--config", cli.directory.file("none.json"), "help", "exit-codes").status == 0)
        let version = try cli.run(executable: CLI.binary + "-sandbox", ["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty, "\(version.stderr)")
        let help = try cli.run(executable: CLI.binary + "-sandbox", ["--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: tokenctl-sandbox"), "\(help.stdout)")
    }

    @Test func aMissingConfigFileExits78NamingIt() throws {
        let result = try cli.run("wallet", "list", "--config", cli.directory.file("absent.json"), "--json")
        #expect(result.status == 78)
        let error = try #require(try result.jsonObject()["error"] as? [String: Any])
        #expect(error["code"] as? String == "config.fileMissing")
        #expect((error["message"] as? String)?.contains("absent.json") == true)
    }

    @Test func anActivationStoppedByTheConfigurationNamesItNotTheDeeplink() throws {
        let result = try cli.run(
            "activate", "mybank://activate?serialNumber=SN1", "--config", cli.directory.file("absent.json"))
        #expect(result.status == 78)
        // The message alone, on standard error: no outcome line for a run that never started.
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(
            result.stderr.contains("absent.json") && result.stderr.contains("(config.fileMissing)"), "\(result.stderr)")
        #expect(!result.stderr.contains("deeplink"))
        let gate = try cli.run(
            ["activate", "mybank://activate?serialNumber=SN1"],
            environment: ["TOKENCTL_ONBOARDING_REQUIRE_FINISHED_USER_ACTIVATION": "maybe"])
        #expect(gate.status == 78 && gate.stdout.isEmpty, "\(gate.stdout)")
        #expect(
            gate.stderr.contains(
                "TOKENCTL_ONBOARDING_REQUIRE_FINISHED_USER_ACTIVATION: expected true or false (config.invalidValue)"),
            "\(gate.stderr)")
        let bad = try cli.run("activate", "not a deeplink")
        #expect(bad.stdout.hasPrefix("ERROR: deeplink"))
    }

    @Test func unreadableJSONExits78NamingTheFile() throws {
        let config = cli.write("broken.json", "{\"database\": ")
        let result = try cli.run("wallet", "list", "--config", config)
        #expect(result.status == 78)
        #expect(result.stderr.contains("configuration file \(config) is not valid JSON"))
    }

    @Test func aWrongTypeExits78NamingTheFileAndKey() throws {
        let config = cli.write("typed.json", #"{"database": {"busy-timeout-ms": "long"}}"#)
        let result = try cli.run("wallet", "list", "--config", config)
        #expect(result.status == 78)
        #expect(
            result.stderr.contains("configuration file \(config): key database.busy-timeout-ms: expected an integer"))
        let fromEnvironment = try cli.run(
            ["wallet", "list"], environment: ["TOKENCTL_DATABASE_BUSY_TIMEOUT_MS": "soon"])
        #expect(fromEnvironment.status == 78)
        #expect(fromEnvironment.stderr.contains("TOKENCTL_DATABASE_BUSY_TIMEOUT_MS"))
    }

    @Test func anExplicitPathInAMissingDirectoryExits74() throws {
        let result = try cli.run(
            ["wallet", "list", "--json"],
            environment: ["TOKENCTL_DATABASE_PATH": cli.directory.file("no/such/dir/db.sqlite")])
        #expect(result.status == 74)
        #expect((try result.jsonObject()["error"] as? [String: Any])?["code"] as? String == "storage.directoryMissing")
        #expect(!FileManager.default.fileExists(atPath: cli.directory.file("no")))
    }

    @Test func theDefaultDatabaseIsCreatedUnderXDGDataHomeOwnerOnly() throws {
        var defaults = cli
        defaults.environment["TOKENCTL_DATABASE_PATH"] = nil
        defaults.environment["XDG_DATA_HOME"] = cli.directory.file("data")
        #expect(try defaults.run("wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL1").status == 0)
        #expect(fileMode(cli.directory.file("data/tokenctl")) == 0o700)
        #expect(fileMode(cli.directory.file("data/tokenctl/tokenctl.sqlite")) == 0o600)
        // closed cleanly: the write-ahead log was checkpointed away
        #expect(!FileManager.default.fileExists(atPath: cli.directory.file("data/tokenctl/tokenctl.sqlite-wal")))
    }

    @Test func aCorruptDatabaseExits74AndIsLeftAlone() throws {
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
        let path = cli.write("tokenctl.sqlite", garbage)
        let result = try cli.run("wallet", "list", "--json")
        #expect(result.status == 74)
        #expect((try result.jsonObject()["error"] as? [String: Any])?["code"] as? String == "storage.corrupt")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    @Test func aDatabaseHeldPastTheBusyTimeoutExits75() throws {
        try cli.run("wallet", "list")
        let holder = try WriteLockHolder(database: cli.databasePath)
        let result = try cli.run(
            ["wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL1", "--json"],
            environment: ["TOKENCTL_DATABASE_BUSY_TIMEOUT_MS": "200"])
        holder.release()
        #expect(result.status == 75)
        #expect((try result.jsonObject()["error"] as? [String: Any])?["code"] as? String == "storage.busy")
        #expect(try cli.run("wallet", "list", "--json").stdout == "[]\n")
    }
}

/// Another process (python3's sqlite3) holding the write lock from `BEGIN IMMEDIATE` until
/// ``release()``: held for as long as the test needs, however slowly a loaded machine starts
/// the commands that meet it. It says it holds the lock, and learns it may let go, through
/// files beside the database (at most 15 minutes, should the test die).
final class WriteLockHolder {
    private let process: SpawnedProcess
    private let releasePath: String

    init(database: String) throws {
        let readyPath = database + ".holder-ready"
        releasePath = database + ".holder-release"
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(null) }
        process = try SpawnedProcess(
            executable: "/usr/bin/env",
            arguments: [
                "python3", "-c",
                """
                import os, sqlite3, sys, time
                db = sqlite3.connect(sys.argv[1], isolation_level=None)
                db.execute("BEGIN IMMEDIATE")
                open(sys.argv[2], "w").close()
                # The test releases it; this bounds only a holder whose test died (60 s was
                # less than four commands took on a loaded machine).
                deadline = time.time() + 900
                while not os.path.exists(sys.argv[3]) and time.time() < deadline:
                    time.sleep(0.01)
                db.execute("ROLLBACK")
                """, database, readyPath, releasePath,
            ],
            environment: ProcessInfo.processInfo.environment, directory: nil,
            standardInput: null, standardOutput: null, standardError: STDERR_FILENO
        )
        let deadline = ContinuousClock.now + .seconds(30)
        while !FileManager.default.fileExists(atPath: readyPath) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                release()
                throw POSIXError(.EIO)
            }
            usleep(5_000)
        }
    }

    /// Lets the transaction go and waits for the process.
    func release() {
        #expect(FileManager.default.createFile(atPath: releasePath, contents: nil))
        process.waitUntilExit()
    }

    deinit {
        release()
    }
}

extension ConfigurationAndDatabaseTests {
    /// `db status` reports and changes nothing: a file of an older tokenctl stays as it is
    /// until `db migrate`.
    @Test func dbStatusOnAnOlderSQLiteFileOnlyReports() throws {
        let cli = CLI()
        #expect(try cli.run("wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL0001").status == 0)
        // The file as the previous version left it: its last migration not applied.
        let downgrade = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("DROP INDEX pass_record_activating")
            db.execute("DROP TABLE idempotency_key")
            db.execute("DROP TABLE audit_tree_node")
            db.execute("DROP TABLE audit_tree_leaves")
            db.execute("DROP TABLE audit_checkpoint")
            db.execute("DROP TABLE audit_cosignature")
            db.execute("DELETE FROM grdb_migrations WHERE identifier IN ('v8-idempotency-keys', 'v9-idempotency-attempts', 'v10-transparency-log', 'v11-witness-cosignatures', 'v12-checkpoints-by-log')")
            db.execute("PRAGMA user_version = 7")
            db.commit()
            """
        #expect(try runProgram("/usr/bin/env", ["python3", "-c", downgrade, cli.databasePath]).status == 0)
        let applied = {
            try runProgram(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM grdb_migrations').fetchone()[0])",
                    cli.databasePath,
                ]
            ).output
        }

        let status = try cli.run("db", "status", "--json")
        #expect(status.status == 74, "\(status.stderr)")
        let object = try status.jsonObject()
        #expect(
            object["pending"] as? [String] == [
                "v8-idempotency-keys", "v9-idempotency-attempts", "v10-transparency-log", "v11-witness-cosignatures",
                "v12-checkpoints-by-log",
            ])
        #expect(object["current"] as? Bool == false)
        #expect(try applied() == "7")

        let migrated = try cli.run("db", "migrate")
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(migrated.stdout.contains("v8-idempotency-keys") && migrated.stdout.contains("v12-checkpoints-by-log"))
        #expect(try applied() == "12")
        #expect(try cli.run("db", "status").status == 0)
    }
}

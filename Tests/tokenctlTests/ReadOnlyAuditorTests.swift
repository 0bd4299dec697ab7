import Foundation
import TestSupport
import Testing

/// An auditor with read access only: every reading command works on the database, writing
/// commands say read-only, and a file the user cannot read at all says so.
@Suite struct ReadOnlyAuditorTests {
    /// Runs tokenctl as an unprivileged user (`nobody` through setpriv when the tests run as
    /// root, who would bypass file modes), or as this user otherwise.
    func asAuditor(_ cli: CLI, _ arguments: [String]) throws -> CLIResult {
        guard getuid() == 0 else { return try cli.run(arguments) }
        return try cli.run(
            executable: "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", CLI.binary] + arguments)
    }

    /// A database with passes and audit entries, readable by others and writable by its owner only.
    func auditedDatabase(_ harness: ActivationHarness) throws {
        try harness.add("SNRO1", "DAPLRO1")
        try harness.add("SNRO2", "SBXDECLINEDRO2")
        #expect(try harness.activate("SNRO1").outcome == "APPROVED")
        #expect(try harness.activate("SNRO2").outcome == "DECLINED")
        chmod(harness.cli.directory.path, 0o755)
        for suffix in ["", "-wal", "-shm"] where access(harness.cli.databasePath + suffix, F_OK) == 0 {
            chmod(harness.cli.databasePath + suffix, 0o644)
        }
        if getuid() != 0 { chmod(harness.cli.directory.path, 0o555) }
    }

    @Test func everyReadingCommandWorksOnADatabaseTheUserCanOnlyRead() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try auditedDatabase(harness)
            let cli = harness.cli

            for command in [
                ["audit", "list"], ["audit", "list", "--json"], ["audit", "show", "1"],
                ["audit", "export", "--format", "csv"],
                ["audit", "verify"], ["wallet", "list"], ["wallet", "show", "SNRO1"], ["wallet", "export"],
                ["db", "status"],
            ] {
                let result = try asAuditor(cli, command)
                #expect(result.status == 0, "\(command): \(result.stderr)")
            }
            let verify = try asAuditor(cli, ["audit", "verify"])
            #expect(verify.stdout.contains("verified"), "\(verify.stdout)")
            let list = try asAuditor(cli, ["audit", "list", "--json"])
            #expect((try list.json() as? [Any])?.count == 2)

            // db status only reads: it names the schema, not SQLite's "unable to open".
            let status = try asAuditor(cli, ["db", "status"])
            #expect(status.stdout.contains("(current)"), "\(status.stdout)\(status.stderr)")

            let write = try asAuditor(cli, ["wallet", "add", "--serial", "SNRO3", "--device-account-id", "DAPLRO3"])
            #expect(write.status == 74)
            #expect(write.stderr.contains("read-only"))
            chmod(cli.directory.path, 0o700)
        }
    }

    @Test func aFileTheUserCannotReadSaysCannotRead() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try auditedDatabase(harness)
            let cli = harness.cli
            chmod(cli.databasePath, 0o000)
            for command in [
                ["audit", "verify"], ["wallet", "list"],
                ["wallet", "add", "--serial", "SNRO3", "--device-account-id", "DAPLRO3"],
            ] {
                let result = try asAuditor(cli, command)
                #expect(result.status == 74, "\(command)")
                #expect(result.stderr.contains("cannot read"), "\(command): \(result.stderr)")
                #expect(!result.stderr.contains("read-only"), "\(command): \(result.stderr)")
            }
            chmod(cli.databasePath, 0o600)
            chmod(cli.directory.path, 0o700)
        }
    }
}

/// A system service started without HOME or XDG_DATA_HOME (systemd gives it neither).
@Suite struct ServiceWithoutHomeTests {
    @Test(.enabled(if: getuid() == 0, "needs root to run as the nobody account"))
    func aSystemAccountWithoutHomeUsesVarLibAndNamesTheSettingWhenItCannot() throws {
        let cli = CLI()
        let result = try cli.run(
            executable: "/usr/bin/env",
            [
                "-i", "PATH=/usr/bin:/bin", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                CLI.binary, "wallet", "list",
            ])
        #expect(!result.stderr.contains("/.local"), "\(result.stderr)")
        if access("/var/lib/tokenctl", F_OK) != 0 {
            #expect(result.status == 74)
            #expect(result.stderr.contains("/var/lib/tokenctl"), "\(result.stderr)")
            #expect(result.stderr.contains("database.path"), "\(result.stderr)")
        }
    }
}

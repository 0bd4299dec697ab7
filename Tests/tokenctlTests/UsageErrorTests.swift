import Foundation
import TestSupport
import Testing

/// Usage errors in one format, "did you mean" for commands, and the batch's own words.
@Suite struct UsageErrorTests {
    let cli = CLI()

    @Test(arguments: [
        (["walet", "list"], "unknown command 'walet' for tokenctl. Did you mean 'wallet'?", "see 'tokenctl --help'"),
        (
            ["wallet", "lst"], "unknown command 'lst' for tokenctl wallet. Did you mean 'list'?",
            "see 'tokenctl wallet --help'"
        ),
        (
            ["audit", "verfy"], "unknown command 'verfy' for tokenctl audit. Did you mean 'verify'?",
            "see 'tokenctl audit --help'"
        ),
        (["help", "nosuch"], "unknown command 'nosuch' for tokenctl", "see 'tokenctl --help'"),
        (
            ["wallet", "list", "--jsn"], "Unknown option '--jsn'. Did you mean '--json'?",
            "see 'tokenctl wallet list --help'"
        ),
        (["activate"], "give either a deeplink or --batch FILE", "see 'tokenctl activate --help'"),
        // An unknown option is the mistake to name, not the missing deeplink.
        (["activate", "-rf"], "Unknown option '-rf'", "see 'tokenctl activate --help'"),
        (["activate", "--bogus"], "Unknown option '--bogus'", "see 'tokenctl activate --help'"),
        (
            ["activate", "mybank://activate?serialNumber=SN1", "--batch", "-"],
            "give either a deeplink or --batch FILE, not both", "see 'tokenctl activate --help'"
        ),
        // The service has its own command line, with the same format.
        (["serve", "--bogus"], "Unknown option '--bogus'", "see 'tokenctl serve --help'"),
        (["serve", "--listen", "nonsense"], "--listen must be HOST:PORT", "see 'tokenctl serve --help'"),
        (["serve", "--log-level", "loud"], "--log-level must be one of", "see 'tokenctl serve --help'"),
    ])
    func everyUsageErrorHasOneFormatAndExits64(arguments: [String], message: String, hint: String) throws {
        let result = try cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("tokenctl: \(message)"), "\(result.stderr)")
        #expect(result.stderr.contains("(usage.invalid)\nusage: tokenctl"), "\(result.stderr)")
        #expect(result.stderr.contains(hint), "\(result.stderr)")
        #expect(!result.stderr.contains("Error:"))
    }

    /// One executable: started by the name `tokenctl-serve` (the link the package installs),
    /// it is the service's command line, its help and its usage errors; `tokenctl help serve`
    /// and `tokenctl serve --help` give the same help.
    @Test func theExecutableStartedAsTokenctlServeIsTheService() throws {
        let link = cli.directory.file("tokenctl-serve")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: CLI.binary)
        let help = try cli.run(executable: link, ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: tokenctl serve [--socket <path>]"), "\(help.stdout)")
        #expect(try cli.run("serve", "--help").stdout == help.stdout)
        #expect(try cli.run("help", "serve").stdout == help.stdout)
        let usage = try cli.run(executable: link, ["--listen", "nonsense"])
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("tokenctl: --listen must be HOST:PORT"), "\(usage.stderr)")
        // Not the command line's words: `wallet` is no service option.
        #expect(try cli.run(executable: link, ["wallet", "list"]).status == 64)
    }

    @Test func helpForAKnownCommandStillWorks() throws {
        let help = try cli.run("help", "wallet")
        #expect(help.status == 0)
        #expect(help.stdout.contains("OVERVIEW: Administer wallet pass records"))
    }

    /// A command's overview reads as prose: no run of spaces inside a sentence (a string
    /// literal's line continuation lost once left the next line's indentation in the text).
    @Test(arguments: [
        ["device", "remove"], ["device", "activate"], ["verification", "run"], ["db", "copy"], ["sandbox"],
        ["activate"],
    ])
    func anOverviewHasNoRunsOfSpaces(command: [String]) throws {
        let help = try cli.run(command + ["--help"])
        #expect(help.status == 0)
        let overview = help.stdout.components(separatedBy: "USAGE:")[0]
        for line in overview.split(separator: "\n") {
            let text = line.drop { $0 == " " }
            #expect(!text.contains("   "), "\(command.joined(separator: " ")) --help: \(line)")
        }
    }

    @Test func aMissingBatchFileIsABatchError() throws {
        let result = try cli.run(["activate", "--batch", cli.directory.file("absent.txt"), "--json"])
        #expect(result.status == 65)
        #expect(result.stdout.contains("activation.batchUnreadable"))
        #expect(result.stderr.contains("cannot use the batch input"), "\(result.stderr)")
        #expect(!result.stderr.contains("import rejected"))
    }

    @Test func aBatchDryRunPreviewsEachLineAndSendsAndWritesNothing() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SNDRY1", "DAPLDRY1")
            try harness.add("SNDRY2", "DAPLDRY2", state: "activated")
            let file = harness.cli.write(
                "dry.txt",
                "mybank://activate?serialNumber=SNDRY1\nmybank://activate?serialNumber=SNDRY2\nmybank://activate?serialNumber=SNDRYNONE\n"
            )
            let json = try harness.cli.run("activate", "--batch", file, "--dry-run", "--json")
            let lines = json.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(lines.map { $0["outcome"] as? String } == ["DRY_RUN", "ALREADY_ACTIVATED", "ERROR"])
            #expect(
                (lines.first?["dryRun"] as? [String: Any])?["url"] as? String == harness.sandbox.baseURL
                    + "/issuer/push-provisioning/tokens/activations")
            let text = try harness.cli.run("activate", "--batch", file, "--dry-run")
            #expect(text.stdout.contains("line 1: dry run: would POST"), "\(text.stdout)")
            #expect(harness.sandbox.activationRequestCount == 0)
            #expect(try harness.auditEntries().isEmpty)
            let list = try #require(
                try harness.cli.run("wallet", "show", "SNDRY1", "--json").json() as? [[String: Any]])
            #expect(list.first?["state"] as? String == "requiresActivation")
        }
    }

    /// A bad flag value names the flag and is a usage error (64), not a configuration error
    /// blamed on an environment variable nobody set.
    /// Usage errors found once the command runs look like the parser's: the message, the
    /// command's usage and where its help is.
    @Test(arguments: [
        (
            ["verification", "documents", "select", "FOO"], "unknown document type FOO",
            "tokenctl verification documents select"
        ),
        (
            ["verification", "otp", "verify", "--otp-file", "/nonexistent/otp"],
            "--otp-file /nonexistent/otp cannot be read", "tokenctl verification otp verify"
        ),
        (["--version", "extra"], "--version takes nothing but --verbose", "tokenctl"),
        (
            ["audit", "list", "--since", "2026-02-01", "--until", "2026-01-01"],
            "--since 2026-02-01 is later than --until 2026-01-01", "tokenctl audit list"
        ),
    ])
    func lateUsageErrorsCarryTheUsage(arguments: [String], message: String, command: String) throws {
        let result = try cli.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("tokenctl: \(message)"), "\(result.stderr)")
        #expect(result.stderr.contains("(usage.invalid)\nusage: "), "\(result.stderr)")
        #expect(result.stderr.contains("see '\(command) --help'"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout)")
    }

    /// An outcome is named in any case, as the other enumerated values are.
    @Test func anOutcomeIsTakenInAnyCase() throws {
        let lower = try cli.run("audit", "list", "--outcome", "approved", "--json")
        #expect(lower.status == 0, "\(lower.stderr)")
        #expect(try cli.run("audit", "list", "--outcome", "dry_run").status == 64)
    }

    @Test func badFlagValuesNameTheFlag() throws {
        let emptyHost = try cli.run("--host-id", "", "activate", "mybank://activate?serialNumber=SN1")
        #expect(emptyHost.status == 64)
        #expect(
            emptyHost.stderr.hasPrefix("tokenctl: --host-id must name this host, not be empty (usage.invalid)"),
            "\(emptyHost.stderr)")
        let emptyDatabase = try cli.run("--database", "", "wallet", "list")
        #expect(emptyDatabase.status == 64, "\(emptyDatabase.stderr)")
        #expect(
            emptyDatabase.stderr.hasPrefix(
                "tokenctl: --database must name a SQLite database file, not be empty (usage.invalid)"),
            "\(emptyDatabase.stderr)")
        let emptyConfig = try cli.run("wallet", "list", "--config", " ")
        #expect(emptyConfig.status == 64, "\(emptyConfig.stderr)")
        #expect(
            emptyConfig.stderr.hasPrefix(
                "tokenctl: --config must name a configuration file, not be empty (usage.invalid)"),
            "\(emptyConfig.stderr)")

        let password = try cli.run("db", "copy", "--to", "postgres://tokenctl:s3cret@db.mybank.net/tokenctl")
        #expect(password.status == 64)
        #expect(
            password.stderr.contains(
                "--to must be postgres://USER@HOST[:PORT]/DATABASE[?sslmode=…]: it holds a password"),
            "\(password.stderr)")
        #expect(!password.stderr.contains("s3cret"))
        let noUser = try cli.run("db", "copy", "--to", "postgres://db.mybank.net/tokenctl")
        #expect(noUser.status == 64)
        #expect(noUser.stderr.contains("it names no user"))
        for result in [emptyHost, password, noUser] {
            #expect(!result.stderr.contains("environment variable"), "\(result.stderr)")
            #expect(
                !result.stderr.contains("TOKENCTL_DATABASE_URL") && !result.stderr.contains("HOST_ID"),
                "\(result.stderr)")
        }
    }
}

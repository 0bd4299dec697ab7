import ArgumentParser
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import TokenctlConfiguration
import WalletModel

struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "The database's schema, and moves between SQLite and PostgreSQL.",
        discussion: """
            SQLite (database.path) applies its migrations when a command opens it. PostgreSQL \
            (database.url) does not: run tokenctl db migrate once per new release, from one host; \
            other commands refuse an older schema (storage.migrationRequired) and a newer one \
            (storage.schemaTooNew).
            """,
        subcommands: [DatabaseStatusCommand.self, DatabaseMigrateCommand.self, DatabaseCopyCommand.self]
    )
}

struct DatabaseStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Which database is used and whether its schema is current.",
        discussion: "Exit 0 when current; 74 (storage.migrationRequired) when migrations are pending."
    )

    @Flag(help: "Print JSON instead of text.")
    var json = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: json) {
            let status = try await DatabaseAdmin(settings: try await global.settings()).status()
            // A schema behind (or ahead) is reported inside the status object (one JSON object, as activate's).
            let behind = status.isCurrent ? nil : DatabaseOutcome.notCurrent(status)
            var object = DatabaseText.json(status)
            object.append("error", behind.map { .object(errorObject($0)) } ?? .null)
            Output.print(json: json ? object : nil, lines: DatabaseText.lines(status))
            if let behind {
                Output.error("\(behind.message) (\(behind.code.rawValue))")
                throw ExitCode(behind.exitStatus.rawValue)
            }
        }
    }
}

struct DatabaseMigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the schema migrations this tokenctl knows and the database lacks.",
        discussion: """
            Safe to run again, and from several hosts at once: each migration is applied once, \
            in its own transaction.

            Example:
              tokenctl db migrate
            """
    )

    @Flag(help: "Print JSON instead of text.")
    var json = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: json) {
            let (applied, status) = try await DatabaseAdmin(settings: try await global.settings()).migrate()
            let summary =
                applied.isEmpty
                ? "schema current; nothing to apply" : "applied \(applied.count): \(applied.joined(separator: ", "))"
            var object = DatabaseText.json(status)
            object.append("appliedNow", .array(applied.map { .string($0) }))
            Output.print(json: json ? object : nil, lines: [summary] + DatabaseText.lines(status))
        }
    }
}

struct DatabaseCopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy the wallet, the audit and the onboarding state between SQLite and PostgreSQL.",
        discussion: """
            From the configured database to --to: a postgres:// URL (its password from \
            database.password-file or TOKENCTL_DATABASE_PASSWORD) or a SQLite file. The target \
            must be empty (storage.targetNotEmpty otherwise); the audit keeps its order and \
            hashes, and the target's chain is verified after; the audit log's signed checkpoints and \
            witness cosignatures go along, each checkpoint verified against the copied rows. Stop the \
            handlers first.

            Examples:
              tokenctl db copy --to postgres://tokenctl@db.example.com/tokenctl
              tokenctl --config pg.json db copy --to /var/lib/tokenctl/back.sqlite
            """
    )

    @Option(
        help: ArgumentHelp(
            "The target: postgres://USER@HOST[:PORT]/DATABASE[?sslmode=…] or a SQLite file.", valueName: "url-or-path"))
    var to: String

    @Flag(help: "Print JSON instead of text.")
    var json = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard !to.isEmpty else { throw ValidationError("--to must be a postgres:// URL or a SQLite file") }
        if let problem = Settings.postgresURLProblem(to) {
            throw ValidationError("--to must be postgres://USER@HOST[:PORT]/DATABASE[?sslmode=…]: \(problem)")
        }
    }

    func run() async throws {
        try await reportingErrors(json: json) {
            let source = try await global.settings()
            let target = try await global.settings(copyTarget: to)
            let report = try await DatabaseCopy(from: source, to: target).run()
            let object = JSONObject([
                "passes": .int(report.passes), "auditRows": .int(report.auditRows), "stateRows": .int(report.stateRows),
                "verifiedRows": .int(report.verifiedRows), "checkpoints": .int(report.checkpoints),
                "cosignatures": .int(report.cosignatures),
            ])
            Output.print(
                json: json ? object : nil,
                lines: [
                    "copied \(report.passes) pass records, \(report.auditRows) audit rows and \(report.stateRows) rows of onboarding state; the target's chain verifies (\(report.verifiedRows) rows); \(report.checkpoints) signed checkpoints of the audit log, each verified on the target, and \(report.cosignatures) witness cosignatures"
                ])
        }
    }
}

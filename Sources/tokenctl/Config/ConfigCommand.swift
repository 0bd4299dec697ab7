import ArgumentParser
import Foundation
import ServiceCommand
import TokenActivation
import TokenctlApp
import TokenctlCommandLine

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "The effective configuration and where each value comes from; checks it.",
        discussion: """
            Precedence: flags, then TOKENCTL_* environment variables, then the configuration \
            file, then the built-in defaults. Secrets are shown only as set or unset.
            """,
        subcommands: [ConfigShow.self, ConfigCheckCommand.self]
    )
}

struct ConfigShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print every setting's effective value and its origin: flag, environment, file or default.",
        discussion: """
            Example:
              TOKENCTL_TMP_TIMEOUT_MS=5000 tokenctl config show
            """
    )

    @Flag(help: "Print JSON instead of text.")
    var json = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: json) {
            let report = try await global.configReport()
            Output.print(json: json ? report.json : nil, lines: ConfigText.lines(report))
        }
    }
}

struct ConfigCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate the configuration: exit 0 when usable, 78 when not.",
        discussion: """
            Loads the configuration as every command does (unknown keys and TOKENCTL_* variables, \
            values of the wrong type), then checks for each server what a command checks before \
            its first request: https unless the host is loopback, TLS files that parse, secret \
            files private to their owner and not empty; and the database: a SQLite file (or its \
            directory) this user can write, or PostgreSQL's password file and CA file; and the service \
            (what `tokenctl serve` needs): the socket's directory and a mode other users cannot write, \
            its TLS files and bearer token file. Nothing is \
            sent and nothing is created. Every problem is listed, each with its error code; the exit \
            status is the most severe (78 for the configuration, 74 for the database). On PostgreSQL, \
            the primary is asked whether a failover may lose committed attempts (no synchronous \
            standby, or synchronous_commit below on): a warning, which does not change the exit status.
            """
    )

    @Flag(help: "Print JSON instead of text.")
    var json = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: json) {
            let settings = try await global.settings()
            // The TLS pair loaded as serve loads it: a key that does not fit its certificate is refused here too.
            let results = ConfigCheck.run(
                settings, environment: ProcessInfo.processInfo.environment,
                serviceChecks: [
                    { try ServiceTLSCheck.check(settings.service) }
                ])
            Output.print(
                json: json ? ConfigText.json(results, configFile: settings.configFile) : nil,
                lines: ConfigText.lines(results, configFile: settings.configFile))
            let failures = results.flatMap(\.failures)
            Output.flush()
            for result in results where result.unusedBecause != nil {
                for warning in result.errors {
                    Output.error("warning: \(result.part) (unused): \(warning.message) (\(warning.code.rawValue))")
                }
            }
            for failure in failures { Output.error("\(failure.message) (\(failure.code.rawValue))") }
            // On PostgreSQL whose files passed, the replication is asked for: a warning, never a failure.
            if settings.postgres != nil, !results.contains(where: { $0.part == "database" && !$0.errors.isEmpty }),
                let warning = await DatabaseAdmin(settings: settings).replicationWarning()
            {
                Output.error("warning: database: \(warning)")
            }
            if let worst = failures.map(\.code.exitStatus).min() { throw ExitCode(worst.rawValue) }
        }
    }
}

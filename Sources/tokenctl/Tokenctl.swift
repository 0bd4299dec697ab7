import ArgumentParser

@main
struct Tokenctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokenctl",
        abstract: "Activate push-provisioned payment tokens and administer the wallet pass records behind them.",
        discussion: """
            Global options (--config, --database, --log-level) work before or after the subcommand.

            Exit codes: 0 ok, 64 usage error, 65 rejected input (import file, duplicate record), \
            66 no matching pass record, 74 database I/O error, 75 database busy, 78 configuration error.
            """,
        version: "0.1.0",
        subcommands: [WalletCommand.self]
    )

    /// Lets global options come before the subcommand (`tokenctl --config C wallet list`),
    /// and reports usage errors as JSON too when `--json` was asked for.
    static func main() async {
        let arguments = GlobalOptions.movingLeadingOptions(Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // An ExitCode was already reported by the command itself.
            if !(error is ExitCode), exitCode(for: error) == .validationFailure, arguments.contains("--json") {
                reportUsageError(message(for: error))
            }
            exit(withError: error)
        }
    }
}

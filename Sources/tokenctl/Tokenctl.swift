import ArgumentParser

@main
struct Tokenctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokenctl",
        abstract: "Activate push-provisioned payment tokens and administer the wallet pass records behind them.",
        discussion: """
            Global options (--config, --database, --log-level) work before or after the subcommand.

            Exit codes: 0 ok (APPROVED or already activated), 2 DECLINED, 3 FAILED, 64 usage error, \
            65 rejected input (deeplink, import file, broken audit chain), 66 no matching pass record, \
            69 TMP unreachable, 74 database I/O error, 75 in progress or database busy, \
            76 TMP protocol error, 77 user activation required, 78 configuration error. \
            `tokenctl help exit-codes` lists every error code with its exit code and meaning.
            """,
        version: "0.1.0",
        subcommands: [ActivateCommand.self, WalletCommand.self, AuditCommand.self, OnboardingCommand.self, DeviceCommand.self, LoginCommand.self, SandboxCommand.self, DemoCommand.self]
    )

    /// Lets global options come before the subcommand (`tokenctl --config C wallet list`),
    /// and reports usage errors as JSON too when `--json` was asked for.
    static func main() async {
        let arguments = GlobalOptions.movingLeadingOptions(Array(CommandLine.arguments.dropFirst()))
        do {
            // `help` is ArgumentParser's own subcommand; `help exit-codes` is ours.
            if arguments.starts(with: ["help", "exit-codes"]) {
                do {
                    var command = try HelpExitCodes.parse(Array(arguments.dropFirst(2)))
                    try command.run()
                    return
                } catch {
                    HelpExitCodes.exit(withError: error)
                }
            }
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

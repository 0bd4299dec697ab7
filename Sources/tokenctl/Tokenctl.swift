import ArgumentParser
import ErrorCodes
import Glibc
import ServiceCommand
import TokenActivation
import TokenctlApp
import TokenctlCommandLine

@main
struct Tokenctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokenctl",
        abstract: "Activate push-provisioned payment tokens and administer the wallet pass records behind them.",
        discussion: """
            Global options (--config, --database, --host-id, --log-level, --log-format) work before or \
            after the subcommand.

            Exit codes, for every command (`tokenctl help exit-codes` lists each error code with its \
            exit code and meaning):
            \((ExitStatus.allCases.map { ($0.rawValue, $0.meaning) } + ErrorCodeTable.signalStatuses.map { ($0.status, $0.meaning) }).map { "  " + String($0.0).padding(toLength: 4, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n"))

            `tokenctl --version --verbose` also names the libcurl and SQLite it runs on.
            """,
        version: Tokenctl.version,
        subcommands: [
            ActivateCommand.self, WalletCommand.self, AuditCommand.self, OnboardingCommand.self,
            VerificationCommand.self, DeviceCommand.self, LoginCommand.self, DatabaseCommand.self, ConfigCommand.self,
            ServeCommand.self, SandboxCommand<SandboxExecutable>.self, DemoCommand<SandboxExecutable>.self,
        ]
    )

    static let version = LibraryVersions.tokenctl

    /// Lets global options come before the subcommand (`tokenctl --config C wallet list`),
    /// and reports usage errors as JSON too when `--json` was asked for.
    static func main() async {
        // Started by the name `tokenctl-serve`: the service's command line alone.
        if ServeCommand.startedAsService {
            await Serve.main(Array(CommandLine.arguments.dropFirst()))
        }
        let arguments = GlobalOptions.movingLeadingOptions(Array(CommandLine.arguments.dropFirst()))
        do {
            // `help` is ArgumentParser's own subcommand; `help exit-codes` is ours.
            if arguments.starts(with: ["help", "exit-codes"]) {
                do {
                    let command = try HelpExitCodes.parse(Array(arguments.dropFirst(2)))
                    try command.run()
                    return
                } catch {
                    if HelpExitCodes.exitCode(for: error) == .validationFailure {
                        reportUsage(
                            HelpExitCodes.message(for: error), arguments: arguments,
                            usage: HelpExitCodes.configuration.usage, command: "tokenctl help exit-codes")
                    }
                    HelpExitCodes.exit(withError: error)
                }
            }
            // The service has a command line of its own (its help too).
            if arguments.first == "serve" {
                await Serve.main(Array(arguments.dropFirst()))
            }
            if arguments.starts(with: ["help", "serve"]) {
                await Serve.main(["--help"])
            }
            // The sandbox and the demo are another executable's.
            if let sandboxArguments = SandboxExecutable.arguments(for: arguments) {
                SandboxExecutable.exec(sandboxArguments)
            }
            // The version alone starts nothing; --verbose loads libcurl to name it.
            if arguments == ["--version"] {
                print(version)
                return
            }
            if arguments == ["--version", "--verbose"] || arguments == ["--verbose", "--version"] {
                print("\(version)\n\(LibraryVersions.summary)")
                return
            }
            if arguments.first == "--version" || arguments.starts(with: ["--verbose", "--version"]) {
                throw ValidationError("--version takes nothing but --verbose")
            }
            if let deeplink = ActivateCommand.plainDeeplink(arguments) {
                try await ActivateCommand.activate(
                    deeplink: deeplink, device: nil, dryRun: false, json: false, reveal: false
                ) {
                    try await GlobalOptions.defaultSettings()
                }
                return
            }
            try checkCommandWords(arguments)
            var command = try command(for: arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            // Already reported by the command itself: exit with its status at once.
            // ArgumentParser's exit(withError:) would first build the command's whole help
            // (about a sixth of a cold DECLINED activation's instructions) to print nothing.
            Output.flush()
            Glibc.exit(code.rawValue)
        } catch {
            if exitCode(for: error) == .validationFailure {
                reportUsage(message(for: error), arguments: arguments)
            }
            exit(withError: error)
        }
    }

    /// The usual case, a command with arguments it accepts, parsed by that command alone.
    /// Parsing from the root first reflects the arguments of every command in the tree,
    /// with most of a cold start's protocol-conformance scans (Benchmarks/README.md,
    /// "Measured shapes").
    /// Anything the command does not accept as it stands (help, a usage error) is parsed
    /// again from the root, so what the user sees does not change.
    static func command(for arguments: [String]) throws -> any ParsableCommand {
        let path = CommandPath.resolve(arguments, root: Tokenctl.self).path
        if path.count > 1, let leaf = path.last, leaf.configuration.subcommands.isEmpty,
            let command = try? leaf.parse(Array(arguments.dropFirst(path.count - 1)))
        {
            return command
        }
        return try parseAsRoot(arguments)
    }

    /// Mistyped command words, and `help` for a command that does not exist: a usage error
    /// with "did you mean", as ArgumentParser gives for flags.
    static func checkCommandWords(_ arguments: [String]) throws {
        var words = arguments
        if words.first == "help" { words.removeFirst() }
        let (path, unknown) = CommandPath.resolve(words, root: Tokenctl.self)
        guard let unknown else { return }
        let guess = CommandPath.suggestion(for: unknown.word, among: unknown.candidates)
        let place = path.count == 1 ? "tokenctl" : CommandPath.name(path)
        throw ValidationError(
            "unknown command '\(unknown.word)' for \(place)"
                + (guess.map { ". Did you mean '\($0)'?" } ?? "; see '\(place) --help'"))
    }

    /// Every usage error in one format: `tokenctl: message (usage.invalid)` on standard error,
    /// the command's usage under it, and `{"error": …}` on stdout with `--json`. Exits 64.
    /// `usage` and `command` name a command outside the tree (`help exit-codes`).
    static func reportUsage(
        _ message: String, arguments: [String], usage: String? = nil, command: String? = nil
    ) -> Never {
        var words = arguments
        if words.first == "help" { words.removeFirst() }
        let path = CommandPath.resolve(words, root: Tokenctl.self).path
        let usage = usage ?? usageString(for: path.last!).replacingOccurrences(of: "\n", with: " ")
        exitWithUsageError(
            message, usage: usage, command: command ?? CommandPath.name(path), json: arguments.contains("--json"))
    }
}

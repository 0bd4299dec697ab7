import ArgumentParser
import TokenctlApp
import TokenctlCommandLine
import TokenctlConfiguration

/// The `tokenctl-sandbox` executable: the loopback simulator of every peer and the demo,
/// apart from the command line that ships to production. `tokenctl sandbox …` and
/// `tokenctl demo` run it with their arguments (`SandboxExecutable` in tokenctl), so its
/// help and usage errors speak of `tokenctl sandbox` and `tokenctl demo`. Started alone,
/// `tokenctl-sandbox [options]` is `tokenctl sandbox [options]`.
@main
struct TokenctlSandbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokenctl",
        abstract: "The loopback simulator of TMP, PowerAuth, onboarding and MIRACL, and the demo that runs on it.",
        subcommands: [SandboxCommand<Simulator>.self, DemoCommand<Simulator>.self],
        defaultSubcommand: SandboxCommand<Simulator>.self
    )

    static func main() async {
        var arguments = GlobalFlagValues.withoutGlobalOptions(Array(CommandLine.arguments.dropFirst()))
        if arguments.first == "help", arguments.count > 1 { arguments = Array(arguments.dropFirst()) + ["--help"] }
        // Started by its own name: its own version and usage (the commands' help speaks of
        // `tokenctl sandbox` and `tokenctl demo`, which run it).
        if arguments == ["--version"] {
            print(LibraryVersions.tokenctl)
            return
        }
        if arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
            print(
                """
                OVERVIEW: \(configuration.abstract)

                USAGE: tokenctl-sandbox [sandbox] [<options>]
                       tokenctl-sandbox demo [<options>]
                       (the same as tokenctl sandbox and tokenctl demo)

                OPTIONS:
                  --version               Show the version.
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  sandbox (default)       \(SandboxCommand<Simulator>.configuration.abstract)
                  demo                    \(DemoCommand<Simulator>.configuration.abstract)

                  See 'tokenctl-sandbox sandbox --help' or 'tokenctl-sandbox demo --help' for their options.
                """)
            return
        }
        let leaf: any ParsableCommand.Type =
            arguments.first == "demo" ? DemoCommand<Simulator>.self : SandboxCommand<Simulator>.self
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if !(error is ExitCode), exitCode(for: error) == .validationFailure {
                let usage = usageString(for: leaf).replacingOccurrences(of: "\n", with: " ")
                exitWithUsageError(
                    message(for: error), usage: usage,
                    command: "tokenctl \(leaf.configuration.commandName ?? "sandbox")", json: false)
            }
            exit(withError: error)
        }
    }
}

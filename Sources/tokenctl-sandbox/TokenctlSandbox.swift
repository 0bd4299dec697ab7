import ArgumentParser
import CommandLine

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
        subcommands: [SandboxCommand.self, DemoCommand.self],
        defaultSubcommand: SandboxCommand.self
    )

    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "help", arguments.count > 1 { arguments = Array(arguments.dropFirst()) + ["--help"] }
        let leaf: any ParsableCommand.Type = arguments.first == "demo" ? DemoCommand.self : SandboxCommand.self
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
                exitWithUsageError(message(for: error), usage: usage, command: "tokenctl \(leaf.configuration.commandName ?? "sandbox")", json: false)
            }
            exit(withError: error)
        }
    }
}

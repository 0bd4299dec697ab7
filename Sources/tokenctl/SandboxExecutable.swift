import ArgumentParser
import ErrorCodes
import Glibc
import TokenctlCommandLine
import TokenctlConfiguration

/// `tokenctl sandbox` and `tokenctl demo` run the `tokenctl-sandbox` executable installed
/// beside this one, in this process (exec): the simulator stays out of the command line that
/// ships to production hosts. The commands are declared here for `tokenctl --help`, the
/// completions and the manual; their arguments go to tokenctl-sandbox unparsed, whose own
/// help and errors answer them.
enum SandboxExecutable {
    static let name = "tokenctl-sandbox"
    static let commands: Set<String> = ["sandbox", "demo"]

    /// The arguments of `tokenctl sandbox …` or `tokenctl demo …` (the command word first),
    /// and `help sandbox` / `help demo` as the command's `--help`; nil for any other command.
    static func arguments(for arguments: [String]) -> [String]? {
        // The options every command takes may come before the command word or after it: the
        // sandbox and the demo use none of them, so they are dropped.
        let command = GlobalFlagValues.withoutGlobalOptions(arguments)
        if let first = command.first, commands.contains(first) { return command }
        if arguments.count == 2, arguments[0] == "help", commands.contains(arguments[1]) {
            return [arguments[1], "--help"]
        }
        return nil
    }

    /// Replaces this process with tokenctl-sandbox; `sandbox.notInstalled` (69) when it is not there.
    static func exec(_ arguments: [String]) -> Never {
        let path = besideThisExecutable()
        Output.flush()
        var argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, &argv)
        let reason =
            errno == ENOENT ? "there is no \(path)" : "\(path) cannot be run: \(SystemError.text())"
        Output.error(
            "\(reason); the sandbox and the demo are the tokenctl-sandbox executable, which is not installed beside tokenctl: install the tokenctl-sandbox package (from the source: make build) (\(ErrorCode.sandboxNotInstalled.rawValue))"
        )
        exit(ErrorCode.sandboxNotInstalled.exitStatus.rawValue)
    }

    /// `tokenctl-sandbox` in the directory of the running executable (/proc/self/exe, so a
    /// link or a relative start finds the real one).
    private static func besideThisExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        let executable =
            length > 0
            ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : CommandLine.arguments[0]
        let directory = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(
            separator: "/")
        return (directory.isEmpty ? "." : directory) + "/" + name
    }
}

/// `tokenctl sandbox`, run by tokenctl-sandbox (``SandboxExecutable``).
struct SandboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract:
            "Run the loopback TMP, PowerAuth, onboarding and MIRACL simulator, and a transparency log witness, on 127.0.0.1.",
        discussion: """
            Run by the tokenctl-sandbox executable beside tokenctl (not installed on a production host \
            that does not need it). `tokenctl sandbox --help` lists what it answers: the token references' \
            markers, the PowerAuth, identity verification, onboarding and MIRACL endpoints.
            """
    )

    @OptionGroup var options: SandboxOptions
}

/// `tokenctl demo`, run by tokenctl-sandbox (``SandboxExecutable``).
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Run the whole activation flow on an embedded example: nothing outside a temporary directory is touched.",
        discussion: "Run by the tokenctl-sandbox executable beside tokenctl; `tokenctl demo --help` says what it shows."
    )
}

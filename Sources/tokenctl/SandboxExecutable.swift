import ArgumentParser
import ErrorCodes
import Glibc
import TokenctlCommandLine
import TokenctlConfiguration

/// `tokenctl sandbox` and `tokenctl demo` run the `tokenctl-sandbox` executable installed
/// beside this one, in this process (exec): the simulator stays out of the command line that
/// ships to production hosts. tokenctl is the ``SandboxHost`` of ``SandboxCommand`` and
/// ``DemoCommand`` for `tokenctl --help`, the completions and the manual; their arguments go
/// to tokenctl-sandbox unparsed, whose own help and errors answer them.
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

extension SandboxExecutable: SandboxHost {
    static let sandboxDiscussion = """
        Run by the tokenctl-sandbox executable beside tokenctl (not installed on a production host \
        that does not need it). `tokenctl sandbox --help` lists what it answers: the token references' \
        markers, the PowerAuth, identity verification, onboarding and MIRACL endpoints.
        """
    static let demoDiscussion =
        "Run by the tokenctl-sandbox executable beside tokenctl; `tokenctl demo --help` says what it shows."

    /// Reached only if the arguments were not handed over before parsing: hands them over now.
    static func runSandbox(_ options: SandboxOptions) async throws {
        exec(arguments(for: Array(CommandLine.arguments.dropFirst())) ?? ["sandbox"])
    }

    static func runDemo() async throws {
        exec(["demo"])
    }
}

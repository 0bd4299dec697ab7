import ArgumentParser
import ErrorCodes
import Glibc

/// `tokenctl serve`: runs `tokenctl-serve`, installed beside this executable, with the
/// same arguments. The server is its own executable so that a cold `tokenctl activate`
/// loads none of its code.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the activation API on a Unix socket, kept warm (tokenctl serve --help for the API).",
        discussion: "Runs tokenctl-serve, installed beside tokenctl, with these arguments.",
        shouldDisplay: true
    )

    // Declared here for completions and `tokenctl --help`: `tokenctl serve …` is handed to
    // tokenctl-serve before it is parsed (Tokenctl.main), which reads the same options.
    @Option(help: ArgumentHelp("The Unix socket to listen on (overrides service.socket).", valueName: "path"), completion: .file())
    var socket: String?

    @Option(help: ArgumentHelp("Also listen on this TCP address (HOST:PORT, [::1]:PORT; port 0 picks one); repeatable.", valueName: "host:port"))
    var listen: [String] = []

    @OptionGroup var global: GlobalOptions

    func run() throws {
        var arguments = socket.map { ["--socket", $0] } ?? []
        arguments += listen.flatMap { ["--listen", $0] }
        arguments += global.arguments
        Self.exec(arguments)
    }

    /// Replaces this process with `tokenctl-serve ARGUMENTS`; on failure reports
    /// `service.notInstalled` (69).
    static func exec(_ arguments: [String]) -> Never {
        let path = siblingPath("tokenctl-serve")
        let argv = (["tokenctl-serve"] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        Output.error("tokenctl-serve, the service's executable, is not installed beside tokenctl (\(path): \(reason)); reinstall tokenctl (make install) (\(ErrorCode.serviceNotInstalled.rawValue))")
        Glibc.exit(ErrorCode.serviceNotInstalled.exitStatus.rawValue)
    }

    /// `NAME` in the directory of this executable (`/proc/self/exe`).
    private static func siblingPath(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard count > 0 else { return name }
        let executable = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = executable.lastIndex(of: "/") else { return name }
        return String(executable[...slash]) + name
    }
}

import ArgumentParser
import ErrorCodes
import Glibc
import TokenctlCommandLine

/// `tokenctl serve`: the service (ServiceCommand's `Serve`), run by this executable before
/// the arguments are parsed (`Tokenctl.main`). One executable holds the command line and the
/// service, so that a production host carries one copy of the Swift runtime and Foundation;
/// `tokenctl-serve` is another name of it.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the activation API on a Unix socket, kept warm (tokenctl serve --help for the API).",
        discussion: "Also installed as tokenctl-serve, which takes the same arguments.",
        shouldDisplay: true
    )

    // Declared here for completions and `tokenctl --help`: `tokenctl serve …` is handed to
    // the service's own command line before it is parsed (Tokenctl.main), which reads the
    // same options.
    @Option(
        help: ArgumentHelp("The Unix socket to listen on (overrides service.socket).", valueName: "path"),
        completion: .file())
    var socket: String?

    @Option(
        help: ArgumentHelp(
            "Also listen on this TCP address (HOST:PORT, [::1]:PORT; port 0 picks one); repeatable.",
            valueName: "host:port"))
    var listen: [String] = []

    @OptionGroup var global: GlobalOptions

    /// Whether this process was started by the name `tokenctl-serve` (argv[0]).
    static var startedAsService: Bool {
        let name = CommandLine.arguments.first ?? ""
        return name.split(separator: "/").last == "tokenctl-serve"
    }
}

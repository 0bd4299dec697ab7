import ArgumentParser
import ErrorCodes
import Foundation
import Logging
import TokenctlApp
import TokenctlCommandLine
import TokenctlConfiguration
import TokenctlService

/// `tokenctl serve`: the activation pipeline as a resident service (DESIGN §8). The one
/// executable runs it for `tokenctl serve …` and when it is started as `tokenctl-serve`.
public struct Serve: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "tokenctl serve",
        abstract: "Serve the activation API on a Unix socket (and optional TCP listeners), kept warm.",
        discussion: """
            Listens on service.socket (default $XDG_RUNTIME_DIR/tokenctl/tokenctl.sock, else \
            /run/tokenctl/tokenctl.sock; mode service.socket-mode) and on each --listen address, and \
            prints one line per listener: `listening unix:PATH`, `listening http://HOST:PORT`. The API: \
            POST /v1/activations {"deeplink": "…"} answers the `activate --json` object; \
            POST /v1/activations/batch streams NDJSON; GET /v1/passes/SERIAL, GET /v1/audit; the \
            audit's transparency log: GET /v1/audit/checkpoint, /v1/audit/proof?index=I&size=N, \
            /v1/audit/consistency?from=M&to=N; /livez, /readyz, /metrics (Prometheus). With \
            service.tls.client-ca-file, every TCP client presents a certificate, health checks \
            too: probe /livez and /readyz on the Unix socket. Try: curl --unix-socket PATH -H 'Content-Type: application/json' \
            -d '{"deeplink":"mybank://activate?serialNumber=SN1"}' http://localhost/v1/activations

            A TCP address that is not loopback needs service.tls.cert-file and service.tls.key-file, and \
            client authentication (service.tls.client-ca-file and/or service.auth.bearer-token-file); \
            serve refuses to start without them (78).

            SIGTERM or SIGINT drains: /readyz answers 503, no new connection is accepted, the \
            activations in flight finish, and serve exits 0; a second signal exits at once. Under \
            systemd it reports READY=1 and STOPPING=1 ($NOTIFY_SOCKET) and adopts passed sockets \
            ($LISTEN_FDS). Exit codes: 0 stopped cleanly, 64 bad flags, 69 cannot listen, 74 database \
            error, 75 another serve holds the socket, 78 configuration error.
            """,
        version: LibraryVersions.tokenctl
    )

    @Option(
        help: ArgumentHelp("The Unix socket to listen on (overrides service.socket).", valueName: "path"),
        completion: .file())
    var socket: String?

    @Option(
        help: ArgumentHelp(
            "Also listen on this TCP address (HOST:PORT, [::1]:PORT; port 0 picks one); repeatable.",
            valueName: "host:port"))
    var listen: [String] = []

    @OptionGroup public var global: GlobalOptions

    public func validate() throws {
        for address in listen where ListenAddress(address) == nil {
            throw ValidationError("--listen must be HOST:PORT (IPv6 as [ADDRESS]:PORT), not \(address)")
        }
        if let socket, socket.isEmpty || socket.utf8.count > 107 {
            throw ValidationError("--socket must be a path of 1 to 107 bytes")
        }
    }

    public init() {}

    /// Runs the service with `arguments` (those after `serve`). Usage errors in the one
    /// format of every command (`tokenctl: … (usage.invalid)`, the usage, where the help
    /// is), not ArgumentParser's own.
    public static func main(_ arguments: [String]) async -> Never {
        do {
            var command = try parseAsRoot(arguments)
            if let serve = command as? Serve {
                try await serve.run()
            } else {
                try command.run()
            }
        } catch {
            if !(error is ExitCode), exitCode(for: error) == .validationFailure {
                exitWithUsageError(
                    message(for: error), usage: usageString().replacingOccurrences(of: "\n", with: " "),
                    command: "tokenctl serve", json: false)
            }
            exit(withError: error)
        }
        Foundation.exit(0)
    }

    public func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        // Files the service creates are its own: the socket is opened up to its mode after bind.
        umask(0o077)
        do {
            let settings = try await global.settings(defaultLogLevel: .notice)
            let options = ServiceRunner.Options(
                socket: socket, listen: listen.compactMap(ListenAddress.init), version: LibraryVersions.tokenctl)
            try await ServiceRunner(settings: settings, options: options, environment: environment).run()
        } catch let error as any CodedError {
            FileHandle.standardError.write(
                Data(LogOutput.errorRecord("tokenctl: \(error.message) (\(error.code.rawValue))").utf8))
            throw ExitCode(error.code.exitStatus.rawValue)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            // Every failure leaves with a documented status: what no layer coded stopped
            // the service from listening.
            let code = ErrorCode.serviceCannotListen
            FileHandle.standardError.write(
                Data(LogOutput.errorRecord("tokenctl: the service could not start: \(error) (\(code.rawValue))").utf8))
            throw ExitCode(code.exitStatus.rawValue)
        }
    }
}

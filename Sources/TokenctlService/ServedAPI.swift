import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import TokenctlConfiguration

/// The API as it is served on one address: an ``HTTPListener`` with the ``ConnectionRules``,
/// Hummingbird's HTTP/1.1 channel (inside TLS when given) and ``APIRouter``'s responder, which
/// is the router with its middlewares. `tokenctl serve` runs one per address; the in-process
/// tests run the same assembly on a loopback port.
struct ServedAPI: Sendable {
    let routes: APIRoutes
    let settings: ServiceSettings
    let logger: Logger

    /// A listener on `address` whose requests present `bearerToken` (when given); it calls
    /// `onListening` once bound, with the bound address (a TCP port 0 resolved).
    func listener(
        _ address: ListenerAddress, bearerToken: [UInt8]?, tls: TLSConfiguration? = nil,
        onListening: @escaping @Sendable (SocketAddress?) async -> Void
    ) throws -> any Service {
        let rules = ConnectionRules(
            headerTimeout: .milliseconds(Int64(settings.headerTimeoutMilliseconds)), drainGrace: .seconds(1))
        let http = HTTP1Channel(
            responder: APIRouter.channelResponder(routes, bearerToken: bearerToken),
            configuration: HTTP1Channel.Configuration(
                idleTimeout: .milliseconds(Int64(settings.idleTimeoutMilliseconds)))
        )
        func listening<Child: ServerChildChannel>(_ child: Child) -> any Service {
            HTTPListener(
                address: address, child: child, rules: rules, maxConnections: settings.maxConnections, logger: logger,
                onListening: onListening)
        }
        if let tls {
            return listening(try TLSChannel(http, tlsConfiguration: tls))
        }
        return listening(http)
    }
}

import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Where an ``HTTPListener`` listens.
enum ListenerAddress: Sendable {
    case unix(path: String)
    case tcp(host: String, port: Int)
    /// A listening socket handed over by systemd: adopted, never unlinked.
    case adopted(descriptor: CInt)
}

/// One listening socket serving the API over HTTP/1.1 (optionally inside TLS): a Unix
/// socket path, a TCP address, or a socket systemd passed (socket activation), which
/// Hummingbird's own server cannot adopt. Connections run Hummingbird's HTTP channel;
/// on graceful shutdown the socket stops accepting, idle connections close, and the
/// requests in flight finish before ``run()`` returns.
struct HTTPListener<Child: ServerChildChannel>: Service, CustomStringConvertible {
    /// How ServiceLifecycle names it in its log lines (not a reflection of its state).
    var description: String { "HTTPListener" }

    let address: ListenerAddress
    let child: Child
    /// The per-connection rules (header timeout, HTTP/1.0 close, the drain's grace).
    let rules: ConnectionRules
    /// Connections served at once; further ones wait in the kernel's backlog.
    let maxConnections: Int
    let logger: Logger
    /// Called once listening, with the bound address (a TCP port 0 resolved).
    let onListening: @Sendable (SocketAddress?) async -> Void

    func run() async throws {
        let quiescing = ServerQuiescingHelper(group: MultiThreadedEventLoopGroup.singleton)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
        let child = self.child
        let logger = self.logger
        let rules = self.rules
        let setup: @Sendable (any Channel) -> EventLoopFuture<Child.Value> = { channel in
            child.setup(channel: channel, logger: logger).flatMapThrowing { value in
                try rules.install(on: channel)
                return value
            }
        }
        // Accepted connections beyond those served wait here (two at most), then in the backlog.
        let backPressure = NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark(
            lowWatermark: 1, highWatermark: 2)
        let server: NIOAsyncChannel<Child.Value, Never>
        switch address {
        case .unix(let path):
            server = try await bootstrap.bind(
                unixDomainSocketPath: path, cleanupExistingSocketFile: false, serverBackPressureStrategy: backPressure,
                childChannelInitializer: setup)
        case .tcp(let host, let port):
            server = try await bootstrap.bind(
                host: host, port: port, serverBackPressureStrategy: backPressure, childChannelInitializer: setup)
        case .adopted(let descriptor):
            server = try await bootstrap.bind(
                descriptor, serverBackPressureStrategy: backPressure, childChannelInitializer: setup)
        }
        await onListening(server.channel.localAddress)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                do {
                    let slots = ConnectionSlots(maxConnections)
                    try await server.executeThenClose { inbound in
                        var connections = inbound.makeAsyncIterator()
                        while true {
                            await slots.acquire()
                            guard let connection = try await connections.next() else { break }
                            group.addTask {
                                await child.handle(value: connection, logger: logger)
                                slots.release()
                            }
                        }
                    }
                } catch {
                    logger.debug("service.acceptStopped", metadata: ["error": "\(error)"])
                }
            }
        } onGracefulShutdown: {
            quiescing.initiateShutdown(promise: nil)
        }
    }
}

/// A count of connections served at once: ``acquire()`` waits while all are taken.
final class ConnectionSlots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(_ count: Int) {
        state = Mutex(State(free: max(1, count)))
    }

    func acquire() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

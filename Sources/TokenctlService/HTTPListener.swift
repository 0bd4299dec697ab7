import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle

/// One listening socket serving the API over HTTP/1.1 (optionally inside TLS): a Unix
/// socket path, a TCP address, or a socket systemd passed (socket activation), which
/// Hummingbird's own server cannot adopt. Connections run Hummingbird's HTTP channel;
/// on graceful shutdown the socket stops accepting, idle connections close, and the
/// requests in flight finish before ``run()`` returns.
struct HTTPListener<Child: ServerChildChannel>: Service, CustomStringConvertible {
    /// How ServiceLifecycle names it in its log lines (not a reflection of its state).
    var description: String { "HTTPListener" }

    enum Address: Sendable {
        case unix(path: String)
        case tcp(host: String, port: Int)
        /// A listening socket handed over by systemd: adopted, never unlinked.
        case adopted(descriptor: CInt)
    }

    let address: Address
    let child: Child
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
        let setup: @Sendable (any Channel) -> EventLoopFuture<Child.Value> = { channel in child.setup(channel: channel, logger: logger) }
        let server: NIOAsyncChannel<Child.Value, Never>
        switch address {
        case .unix(let path):
            server = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: false, serverBackPressureStrategy: nil, childChannelInitializer: setup)
        case .tcp(let host, let port):
            server = try await bootstrap.bind(host: host, port: port, serverBackPressureStrategy: nil, childChannelInitializer: setup)
        case .adopted(let descriptor):
            server = try await bootstrap.bind(descriptor, serverBackPressureStrategy: nil, childChannelInitializer: setup)
        }
        await onListening(server.channel.localAddress)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                do {
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            group.addTask { await child.handle(value: connection, logger: logger) }
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

extension APIResponder {
    /// The responder in the form Hummingbird's HTTP channel calls: one request, its
    /// response written on the connection.
    var channelResponder: HTTPChannelHandler.Responder {
        { request, writer, channel in
            let context = BasicRequestContext(source: .init(channel: channel, logger: service.logger))
            let response = try await respond(to: request, context: context)
            try await writer.write(response: response.head, body: response.body)
        }
    }
}

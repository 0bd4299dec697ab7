import HummingbirdCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// What DESIGN §8 asks of each client connection beyond Hummingbird's idle timeout: a
/// request's head must arrive within the header timeout of its first byte; HTTP/1.0 without
/// keep-alive (and any request asking `Connection: close`) is closed after its answer; and
/// when the service drains, a connection already open is not cut at once: for a short grace
/// it still gets its answers (`/readyz` 503), each followed by a close.
struct ConnectionRules: Sendable {
    let headerTimeout: TimeAmount
    /// How long an idle connection stays open once draining starts.
    let drainGrace: TimeAmount

    /// Adds the rules' handlers to a connection whose HTTP/1 pipeline is set up: one before
    /// the HTTP decoder (it sees a request's first byte) and one before the conversion to
    /// HTTP types (it sees each request's head and each answer's end).
    func install(on channel: any Channel) throws {
        let pipeline = channel.pipeline.syncOperations
        let connection = ConnectionState(headerTimeout: headerTimeout, drainGrace: drainGrace)
        let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
        try pipeline.addHandler(MessageRules(connection), position: .before(codec))
        try pipeline.addHandler(FirstByte(connection), position: .first)
    }
}

/// One connection's phase, shared by its two handlers (both on its event loop).
final class ConnectionState: @unchecked Sendable {
    enum Phase { case idle, awaitingHead, inRequest }

    let headerTimeout: TimeAmount
    let drainGrace: TimeAmount
    var phase = Phase.idle
    var draining = false
    var closeAfterAnswer = false
    private var timer: Scheduled<Void>?

    init(headerTimeout: TimeAmount, drainGrace: TimeAmount) {
        self.headerTimeout = headerTimeout
        self.drainGrace = drainGrace
    }

    /// Closes the connection after `delay` unless cancelled.
    func closeLater(_ context: ChannelHandlerContext, after delay: TimeAmount) {
        timer?.cancel()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: delay) { channel.close(promise: nil) }
    }

    func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}

/// Sees the raw bytes: the first byte of a request starts the header timeout.
final class FirstByte: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let connection: ConnectionState

    init(_ connection: ConnectionState) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if connection.phase == .idle {
            connection.phase = .awaitingHead
            connection.closeLater(context, after: connection.headerTimeout)
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connection.cancelTimer()
    }
}

/// Sees each request's head and each answer's parts.
final class MessageRules: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart
    private let connection: ConnectionState

    init(_ connection: ConnectionState) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            connection.cancelTimer()
            connection.phase = .inRequest
            connection.closeAfterAnswer = !head.isKeepAlive || connection.draining
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where connection.closeAfterAnswer || connection.draining:
            head.headers.replaceOrAdd(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            connection.phase = .idle
            if connection.closeAfterAnswer || connection.draining {
                let channel = context.channel
                context.writeAndFlush(data).whenComplete { _ in channel.close(promise: nil) }
                promise?.succeed()
            } else {
                context.write(data, promise: promise)
            }
        default:
            context.write(data, promise: promise)
        }
    }

    /// Draining: the connection is not cut at once (Hummingbird would close an idle one
    /// now); an idle one stays for the grace, a busy one closes after its answer.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        connection.draining = true
        if connection.phase != .inRequest {
            connection.closeLater(context, after: connection.drainGrace)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connection.cancelTimer()
    }
}

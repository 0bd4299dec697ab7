import NIOCore
import NIOHTTP1

/// Collects one request (head, body, end), records it, and answers it.
final class SandboxHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let recorder: Recorder
    private let powerAuth: PowerAuthServer
    private let onboarding: OnboardingServer
    private let miracl: MIRACLPlatform
    private let relyingParty: RelyingParty
    private let witness: WitnessServer
    private let slowDelay: Duration
    /// This connection's number (``RecordedRequest/connection``).
    private let connection: Int
    private let log: (@Sendable (String) -> Void)?
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false
    /// Room for a document submit of four 1 MiB images, base64 and encrypted.
    private static let maximumBody = 16 << 20

    init(
        recorder: Recorder, powerAuth: PowerAuthServer, onboarding: OnboardingServer, miracl: MIRACLPlatform,
        relyingParty: RelyingParty, witness: WitnessServer, slowDelay: Duration, connection: Int,
        log: (@Sendable (String) -> Void)?
    ) {
        self.witness = witness
        self.connection = connection
        self.recorder = recorder
        self.powerAuth = powerAuth
        self.onboarding = onboarding
        self.miracl = miracl
        self.relyingParty = relyingParty
        self.slowDelay = slowDelay
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.removeAll(keepingCapacity: true)
            tooLarge = false
        case .body(var buffer):
            if body.count + buffer.readableBytes <= Self.maximumBody {
                body.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
            } else {
                tooLarge = true
            }
        case .end:
            guard let head else { return }
            self.head = nil
            let target = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            let path = String(target.first ?? "")
            let request = RecordedRequest(
                method: head.method.rawValue, path: path,
                headers: head.headers.map { ($0.name, $0.value) }, body: body,
                query: target.count > 1 ? String(target[1]) : "", connection: connection
            )
            let count = recorder.record(request)
            let reply =
                tooLarge
                ? PowerAuthServer.error(413, "ERROR_GENERIC", "the body is over \(Self.maximumBody >> 20) MiB")
                : route(request, activationCount: count)
            log?("\(request.method) \(path) \(describe(reply))")
            answer(reply, keepAlive: head.isKeepAlive, context: context)
        }
    }

    private func route(_ request: RecordedRequest, activationCount: Int) -> SandboxReply {
        if request.isActivation {
            return TMPBehaviour.reply(toActivation: request.body, slowDelay: slowDelay)
        }
        if let reply = powerAuth.handle(request) ?? onboarding.handle(request) ?? onboarding.handleIdentity(request)
            ?? miracl.handle(request) ?? relyingParty.handle(request) ?? witness.handle(request)
        {
            return reply
        }
        if request.method == "GET" && request.path == "/_sandbox/witness" {
            return .respond(
                status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")], body: witness.verifierKey + "\n")
        }
        if request.method == "GET" && request.path == "/_sandbox/stats" {
            return .respond(
                status: 200, headers: [("Content-Type", "application/json")],
                body: #"{"activationRequests": \#(activationCount)}"#)
        }
        return .respond(
            status: 404, headers: [("Content-Type", "application/json")], body: #"{"errorCode": "NOT_FOUND"}"#)
    }

    private func answer(_ reply: SandboxReply, keepAlive: Bool, context: ChannelHandlerContext) {
        switch reply {
        case .drop:
            context.close(promise: nil)
        case .respond(let status, let headers, let body):
            write(status: status, headers: headers, body: body, keepAlive: keepAlive, context: context)
        case .respondLater(let delay, let status, let body):
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(
                in: .nanoseconds(
                    Int64(delay.components.seconds) * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)
            ) {
                let (handler, context) = loopBound.value
                guard context.channel.isActive else { return }
                handler.write(
                    status: status, headers: [("Content-Type", "application/json")], body: body, keepAlive: keepAlive,
                    context: context)
            }
        }
    }

    private func write(
        status: Int, headers: [(String, String)], body: String, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        var responseHeaders = HTTPHeaders(headers)
        responseHeaders.add(name: "Content-Length", value: String(body.utf8.count))
        responseHeaders.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: responseHeaders)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        var buffer = context.channel.allocator.buffer(capacity: body.utf8.count)
        buffer.writeString(body)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private func describe(_ reply: SandboxReply) -> String {
        switch reply {
        case .drop: "dropped"
        case .respond(let status, _, _): String(status)
        case .respondLater(_, let status, _): "\(status) (slow)"
        }
    }
}

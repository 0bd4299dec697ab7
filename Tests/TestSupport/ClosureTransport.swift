import HTTPTransport
import Synchronization

/// A transport double: each request is answered by a closure, and every request is
/// recorded (as swift-openapi-runtime's `TestClientTransport`). For tests of what a
/// client decides; what crosses a real wire is tested against the sandbox.
public final class ClosureTransport: HTTPTransport {
    private let answer: @Sendable (HTTPRequest, Int) throws(TransportError) -> HTTPResponse
    private let sent = Mutex<[HTTPRequest]>([])

    /// - Parameter answer: given the request and its 0-based number, the response, or the
    ///   transport failure to throw.
    public init(_ answer: @escaping @Sendable (HTTPRequest, Int) throws(TransportError) -> HTTPResponse) {
        self.answer = answer
    }

    /// Answers every request with `status` and a JSON body.
    public convenience init(status: Int, json: String) {
        self.init { _, _ in HTTPResponse(status: status, body: Array(json.utf8)) }
    }

    /// The requests received so far, in order.
    public var requests: [HTTPRequest] { sent.withLock { $0 } }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let number = sent.withLock { requests in
            requests.append(request)
            return requests.count - 1
        }
        return try answer(request, number)
    }
}

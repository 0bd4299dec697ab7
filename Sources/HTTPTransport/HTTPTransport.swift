import Dispatch

/// One HTTP exchange. The transport adds nothing the caller did not ask for.
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    public var url: String
    /// Header lines in order; names as given.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, url: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body
            && lhs.headers.elementsEqual(rhs.headers) { $0.name == $1.name && $0.value == $1.value }
    }
}

/// A complete HTTP response: the final status (no redirects are followed) and body.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// Sends HTTP requests. Implementations never retry by themselves: whether a failed
/// request may be sent again is the caller's decision, based on ``TransportError/wasSent``.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and waits for the whole response.
    /// - Throws: ``TransportError``.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse

    /// The same, blocking the calling thread, which must be a thread of the caller's own
    /// (never one of Swift's cooperative pool): the activation workers call this, so a
    /// request costs no hop between threads.
    func sendBlocking(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse
}

extension HTTPTransport {
    /// Waits for ``send(_:)`` on a task: for transports without a blocking path of their own.
    public func sendBlocking(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        try Blocking.wait { () async throws(TransportError) -> HTTPResponse in try await send(request) }
    }
}

/// Runs async work to completion from a thread that may block.
public enum Blocking {
    /// Starts `body` as a task and blocks the calling thread until it finishes. Never call
    /// it on a thread of the cooperative pool: the task may need that very thread.
    public static func wait<T: Sendable, E: Error>(_ body: @escaping @Sendable () async throws(E) -> T) throws(E) -> T {
        let box = ResultBox<T, E>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(E) {
                box.result = .success(try await body())
            } catch {
                box.result = .failure(error)
            }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }
}

/// Written by one task before a semaphore is signalled, read after the wait.
private final class ResultBox<T: Sendable, E: Error>: @unchecked Sendable {
    var result: Result<T, E>?
}

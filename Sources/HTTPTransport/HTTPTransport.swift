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
}

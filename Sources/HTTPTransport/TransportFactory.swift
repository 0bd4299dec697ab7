/// Makes the transports of one process: libcurl in production, a test double in tests.
/// Every client (TMP, PowerAuth, onboarding) gets its connections here, each with its own
/// options.
public struct TransportFactory: Sendable {
    public typealias Make = @Sendable (CurlTransportOptions) throws(TransportError) -> any HTTPTransport

    private let make: Make

    public init(_ make: @escaping Make) {
        self.make = make
    }

    /// A ``CurlTransport`` per call, all on the process's one transfer thread.
    public static let curl = TransportFactory { options throws(TransportError) in try CurlTransport(options: options) }

    /// The same transport for every call, whatever the options (tests).
    public static func always(_ transport: any HTTPTransport) -> TransportFactory {
        TransportFactory { _ in transport }
    }

    /// A transport with these options.
    public func transport(_ options: CurlTransportOptions) throws(TransportError) -> any HTTPTransport {
        try make(options)
    }
}

/// A transport that counts the connections it opened (a kept-alive one counts once).
public protocol ConnectionCountingTransport: HTTPTransport {
    var connectionsOpened: Int { get }
}

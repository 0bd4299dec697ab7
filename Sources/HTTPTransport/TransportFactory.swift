/// Makes the transports of one process: libcurl in production, a test double in tests.
/// Every client (TMP, PowerAuth, onboarding) gets its connections here, each with its own
/// options.
public struct TransportFactory: Sendable {
    private let make: @Sendable (CurlTransportOptions) throws(TransportError) -> any HTTPTransport
    /// True when the transports are libcurl's, so a pooled ``CurlMultiTransport`` may be used.
    public let isLibcurl: Bool

    public init(isLibcurl: Bool = false, _ make: @escaping @Sendable (CurlTransportOptions) throws(TransportError) -> any HTTPTransport) {
        self.make = make
        self.isLibcurl = isLibcurl
    }

    /// One keep-alive ``CurlTransport`` per call.
    public static let curl = TransportFactory(isLibcurl: true) { options throws(TransportError) in try CurlTransport(options: options) }

    /// The same transport for every call, whatever the options (tests).
    public static func always(_ transport: any HTTPTransport) -> TransportFactory {
        TransportFactory { _ in transport }
    }

    /// A transport with these options.
    public func transport(_ options: CurlTransportOptions) throws(TransportError) -> any HTTPTransport {
        try make(options)
    }
}

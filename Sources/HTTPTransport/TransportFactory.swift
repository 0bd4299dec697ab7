/// Makes the transports of one process: libcurl in production, a test double in tests.
/// Every client (TMP, PowerAuth, onboarding) gets its connections here, each with its own
/// options.
public struct TransportFactory: Sendable {
    public typealias Make = @Sendable (CurlTransportOptions) throws(TransportError) -> any HTTPTransport
    public typealias MakeShared = @Sendable (CurlTransportOptions) throws(TransportError) -> SharedTransport

    private let make: Make
    private let makeShared: MakeShared?

    /// - Parameters:
    ///   - make: one transport per caller (a worker's keep-alive connection).
    ///   - shared: one transport for all of a pipeline's workers (`tmp.transport=multi`);
    ///     without it each worker gets its own from `make`.
    public init(_ make: @escaping Make, shared makeShared: MakeShared? = nil) {
        self.make = make
        self.makeShared = makeShared
    }

    /// One keep-alive ``CurlTransport`` per call; shared: one ``CurlMultiTransport``.
    public static let curl = TransportFactory(
        { options throws(TransportError) in try CurlTransport(options: options) },
        shared: { options throws(TransportError) in
            let multi = try CurlMultiTransport(options: options)
            return SharedTransport(multi, shutdown: multi.shutdown)
        }
    )

    /// The same transport for every call, whatever the options (tests).
    public static func always(_ transport: any HTTPTransport) -> TransportFactory {
        TransportFactory { _ in transport }
    }

    /// A transport with these options.
    public func transport(_ options: CurlTransportOptions) throws(TransportError) -> any HTTPTransport {
        try make(options)
    }

    /// One transport for every worker of a pipeline, or nil when this factory makes none
    /// (each worker then gets its own from ``transport(_:)``).
    public func sharedTransport(_ options: CurlTransportOptions) throws(TransportError) -> SharedTransport? {
        try makeShared?(options)
    }
}

/// A transport all of a pipeline's workers send on, and how to stop it once they are done.
public struct SharedTransport: Sendable {
    public let transport: any HTTPTransport
    private let stop: @Sendable () -> Void

    public init(_ transport: any HTTPTransport, shutdown: @escaping @Sendable () -> Void) {
        self.transport = transport
        stop = shutdown
    }

    /// Stops the transport (its transfer thread); requests still in flight fail.
    public func shutdown() {
        stop()
    }
}

/// A transport that counts the connections it opened (a kept-alive one counts once).
public protocol ConnectionCountingTransport: HTTPTransport {
    var connectionsOpened: Int { get }
}

extension CurlTransport: ConnectionCountingTransport {}
extension CurlMultiTransport: ConnectionCountingTransport {}

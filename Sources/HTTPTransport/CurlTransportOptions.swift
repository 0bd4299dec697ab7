/// Settings of a ``CurlTransport``. TLS peer and host verification are always on.
public struct CurlTransportOptions: Sendable, Equatable {
    public var connectTimeoutMilliseconds: Int
    public var timeoutMilliseconds: Int
    /// PEM bundle of the certificate authorities to trust instead of the system's.
    public var caFile: String?
    /// PEM client certificate and key for mutual TLS.
    public var clientCertificateFile: String?
    public var clientKeyFile: String?
    /// Larger answers fail with ``TransportError/Kind/responseTooLarge``.
    public var maximumResponseBytes: Int
    /// A kept-alive connection idle longer than this is not reused but closed
    /// (`CURLOPT_MAXAGE_CONN`); libcurl's default when nil.
    public var maximumIdleSeconds: Int?
    /// Idle connections the process's transfer thread keeps for reuse, at least: it keeps as
    /// many as the most any transport asked for (`CURLMOPT_MAXCONNECTS`).
    public var keptConnections = 32

    public init(
        connectTimeoutMilliseconds: Int = 3_000, timeoutMilliseconds: Int = 15_000,
        caFile: String? = nil, clientCertificateFile: String? = nil, clientKeyFile: String? = nil,
        maximumResponseBytes: Int = 1 << 20
    ) {
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.timeoutMilliseconds = timeoutMilliseconds
        self.caFile = caFile
        self.clientCertificateFile = clientCertificateFile
        self.clientKeyFile = clientKeyFile
        self.maximumResponseBytes = maximumResponseBytes
    }
}

/// Why an exchange failed, classified by what the server may have seen.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Nothing was sent: the connection was refused.
        case connectionRefused = "transport.connectionRefused"
        /// Nothing was sent: the host name did not resolve.
        case dnsFailure = "transport.dnsFailure"
        /// Nothing was sent: no connection within the connect timeout.
        case connectTimeout = "transport.connectTimeout"
        /// Nothing was sent: the TLS handshake or certificate check failed.
        case tls = "transport.tls"
        /// Nothing was sent: the local CA bundle, client certificate or key was refused by
        /// the TLS library (unreadable, wrong format, key and certificate not a pair).
        case tlsFiles = "transport.tlsFiles"
        /// The request was sent and no complete answer came within the timeout.
        case timeout = "transport.timeout"
        /// The request was sent and the connection broke before a complete answer.
        case connectionLost = "transport.connectionLost"
        /// The answer exceeded the response size cap.
        case responseTooLarge = "transport.responseTooLarge"
        /// Any other failure of the HTTP library.
        case other = "transport.other"
    }

    public let kind: Kind
    /// True when request bytes left this process: the attempt is final and must not be
    /// sent again by anyone but the user.
    public let wasSent: Bool
    /// What the HTTP library said, for logs and messages (never contains request data).
    public let detail: String

    public init(_ kind: Kind, wasSent: Bool, detail: String) {
        self.kind = kind
        self.wasSent = wasSent
        self.detail = detail
    }

    /// A neutral name of the kind (`transport.timeout`); each client maps the kind into
    /// its own error codes (`tmp.timeout`, `powerauth.unreachable`, …).
    public var code: String { kind.rawValue }

    /// Only failures that provably never reached the server, and that may pass, are retried.
    public var isRetryable: Bool { !wasSent && (kind == .connectionRefused || kind == .dnsFailure) }

    public var description: String { "\(code): \(words)" }

    /// What happened, in words for people: the HTTP library's own text (`detail`) belongs
    /// in debug logs, not in messages.
    public var words: String {
        switch kind {
        case .connectionRefused: "the connection was refused"
        case .dnsFailure: "the host name does not resolve"
        case .connectTimeout: "no connection within the connect timeout"
        case .tls: "the TLS handshake failed (\(tlsReason))"
        case .tlsFiles: "the TLS library refused the CA bundle, client certificate or key"
        case .timeout: "no complete answer within the timeout"
        case .connectionLost: "the connection broke before a complete answer"
        case .responseTooLarge: "the answer is larger than the limit"
        case .other: "the HTTP exchange failed"
        }
    }

    /// The certificate problem the library names, in words.
    private var tlsReason: String {
        let text = detail.lowercased()
        if text.contains("self-signed") || text.contains("self signed") {
            return "the server's certificate is self-signed and not trusted"
        }
        if text.contains("expired") { return "the server's certificate has expired" }
        if text.contains("local issuer") || text.contains("unknown ca") || text.contains("unable to get issuer") {
            return "the server's certificate is not signed by a trusted certificate authority"
        }
        if text.contains("subject name") || text.contains("hostname") || text.contains("host name")
            || text.contains("no alternative certificate subject name")
        {
            // libcurl quotes the name it looked for: 'host name' or "host name".
            let quoted = detail.split(whereSeparator: { $0 == "'" || $0 == "\"" }).dropFirst().first.map(String.init)
            return "the server's certificate does not name "
                + (quoted.map { $0.isEmpty ? "this host" : $0 } ?? "this host")
        }
        if text.contains("certificate") { return "the server's certificate was not accepted" }
        return "no secure connection could be agreed"
    }
}

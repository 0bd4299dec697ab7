import ErrorCodes

/// How to connect to one server: its base URL, timeouts and TLS files, as configured
/// under one key prefix (`tmp`, `onboarding`).
public struct ConnectionSettings: Sendable, Equatable {
    public var baseURL: String
    public var connectTimeoutMilliseconds: Int
    public var timeoutMilliseconds: Int
    public var tls: TLSFiles

    public init(baseURL: String, connectTimeoutMilliseconds: Int, timeoutMilliseconds: Int, tls: TLSFiles = TLSFiles())
    {
        self.baseURL = baseURL
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.timeoutMilliseconds = timeoutMilliseconds
        self.tls = tls
    }

    /// libcurl's options for these settings.
    public var transportOptions: CurlTransportOptions {
        CurlTransportOptions(
            connectTimeoutMilliseconds: connectTimeoutMilliseconds, timeoutMilliseconds: timeoutMilliseconds,
            caFile: tls.caFile, clientCertificateFile: tls.clientCertificateFile, clientKeyFile: tls.clientKeyFile
        )
    }

    /// What must hold before connecting: https unless the host is loopback, and usable TLS files.
    ///
    /// - Parameters:
    ///   - prefix: the configuration keys' prefix, such as `tmp`, for messages.
    ///   - urlKey: the key of the base URL, when it is not `<prefix>.base-url`.
    public func check(keyPrefix prefix: String, urlKey: String? = nil) throws(ConfigurationError) {
        try Self.checkTransportSecurity(baseURL, key: urlKey ?? prefix + ".base-url")
        try tls.check(keyPrefix: prefix + ".tls")
    }

    /// The two checks of ``check(keyPrefix:urlKey:)``, each to run on its own (to list every
    /// problem, not the first).
    public func checks(keyPrefix prefix: String, urlKey: String? = nil) -> [() throws -> Void] {
        let baseURL = baseURL, tls = tls
        return [
            { try Self.checkTransportSecurity(baseURL, key: urlKey ?? prefix + ".base-url") },
            { try tls.check(keyPrefix: prefix + ".tls") },
        ]
    }

    /// Plain http is allowed to loopback addresses only (the sandbox).
    public static func checkTransportSecurity(_ baseURL: String, key: String) throws(ConfigurationError) {
        let lower = baseURL.lowercased()
        guard lower.hasPrefix("http://") else { return }
        var host = Substring(lower.dropFirst(7))
        host = host.prefix { $0 != "/" && $0 != "?" }
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        let loopback = host == "localhost" || host == "::1" || host.hasPrefix("127.")
        guard loopback else { throw .insecureURL(baseURL, key: key) }
    }
}

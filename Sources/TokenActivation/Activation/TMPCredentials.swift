import Glibc

/// The authentication headers for TMP, read from files or environment variables (never
/// from the configuration file itself), and the checks on the TMP address.
enum TMPCredentials {
    /// - Throws: ``ConfigurationError`` for a missing or group/other-readable secret file,
    ///   an empty secret, or plain http to a host that is not loopback.
    static func headers(_ settings: Settings, environment: [String: String]) throws(ConfigurationError) -> [(name: String, value: String)] {
        try checkTransportSecurity(settings.tmp.baseURL)
        try TLSFiles.check(settings.tmp.tls)
        var headers: [(name: String, value: String)] = []
        let auth = settings.tmp.authentication
        if let token = try secret(file: auth.bearerTokenFile, key: ConfigKeys.tmpBearerTokenFile, variable: "TOKENCTL_TMP_BEARER_TOKEN", environment: environment) {
            headers.append(("Authorization", "Bearer " + token))
        }
        if let header = auth.apiKeyHeader {
            guard header.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else {
                throw .invalidValue(key: ConfigKeys.tmpAPIKeyHeader, origin: .environment, expected: "an HTTP header name")
            }
            guard let key = try secret(file: auth.apiKeyFile, key: ConfigKeys.tmpAPIKeyFile, variable: "TOKENCTL_TMP_API_KEY", environment: environment) else {
                throw .secretMissing("tmp.auth.api-key-header is set but no API key was given (tmp.auth.api-key-file or TOKENCTL_TMP_API_KEY)")
            }
            headers.append((header, key))
        }
        return headers
    }

    /// Plain http is allowed to loopback addresses only (the sandbox).
    static func checkTransportSecurity(_ baseURL: String) throws(ConfigurationError) {
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
        guard loopback else { throw .insecureURL(baseURL) }
    }

    static func secret(file: String?, key: String, variable: String, environment: [String: String]) throws(ConfigurationError) -> String? {
        if let path = file {
            try SecretFile.checkPrivate(path, key: key)
            let value = try SecretFile.read(path, key: key, limit: 8192, isSecret: true).trimmingTrailingWhitespace
            guard !value.isEmpty else { throw .secretMissing("\(key) names \(path), which is empty") }
            return value
        }
        if let value = environment[variable]?.trimmingTrailingWhitespace, !value.isEmpty {
            return value
        }
        return nil
    }
}

private extension String {
    var trimmingTrailingWhitespace: String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}

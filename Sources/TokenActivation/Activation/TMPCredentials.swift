import ErrorCodes
import HTTPTransport

/// The authentication headers for TMP, read from files or environment variables (never
/// from the configuration file itself), after the checks on the TMP address and TLS files.
public enum TMPCredentials {
    /// - Throws: ``ConfigurationError`` for a missing or group/other-readable secret file,
    ///   an empty secret, unusable TLS files, or plain http to a host that is not loopback.
    public static func headers(
        _ tmp: TMPSettings, environment: [String: String]
    ) throws(ConfigurationError) -> [(name: String, value: String)] {
        try tmp.connection.check(keyPrefix: "tmp")
        return try secretHeaders(tmp, environment: environment)
    }

    /// The headers alone, without the checks on the address and TLS files.
    public static func secretHeaders(
        _ tmp: TMPSettings, environment: [String: String]
    ) throws(ConfigurationError) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        let auth = tmp.authentication
        if let token = try SecretFile.secret(
            file: auth.bearerTokenFile, key: TMPSettings.Keys.bearerTokenFile,
            variable: TMPSettings.Keys.bearerTokenVariable, environment: environment)
        {
            headers.append(("Authorization", "Bearer " + token))
        }
        if let header = auth.apiKeyHeader {
            guard header.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else {
                throw .invalidValue(
                    key: TMPSettings.Keys.apiKeyHeader, origin: .environment, expected: "an HTTP header name")
            }
            guard
                let key = try SecretFile.secret(
                    file: auth.apiKeyFile, key: TMPSettings.Keys.apiKeyFile, variable: TMPSettings.Keys.apiKeyVariable,
                    environment: environment)
            else {
                throw .secretMissing(
                    "tmp.auth.api-key-header is set but no API key was given (tmp.auth.api-key-file or TOKENCTL_TMP_API_KEY)"
                )
            }
            headers.append((header, key))
        }
        return headers
    }
}

/// A configuration problem: a missing or malformed file, an unknown key, or a value of the
/// wrong type or range. The message names the file (or environment variable) and the key.
public struct ConfigurationError: CodedError, Equatable, CustomStringConvertible {
    public let code: ErrorCode
    public let message: String
    public var description: String { message }

    private init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `tmp.base-url` → `TOKENCTL_TMP_BASE_URL`: the environment variable that sets a key.
    public static func environmentName(for key: String) -> String {
        "TOKENCTL_" + key.uppercased().map { $0 == "." || $0 == "-" ? "_" : String($0) }.joined()
    }

    public static func missingSetting(_ key: String, purpose: String) -> Self {
        Self(
            .configSecretMissing,
            "\(key) is not set (configuration file or \(environmentName(for: key))); it is needed \(purpose)")
    }

    /// The TLS library refused the CA bundle, client certificate or key of `server`.
    public static func tlsFiles(server: String, detail: String) -> Self {
        Self(.configTLSFiles, "the TLS files configured for \(server) were refused: \(detail)")
    }

    public static func fileMissing(_ path: String, namedBy origin: String) -> Self {
        Self(.configFileMissing, "configuration file \(path) (named by \(origin)) does not exist")
    }

    public static func unreadable(_ path: String, _ reason: String) -> Self {
        Self(.configUnreadable, "configuration file \(path) cannot be read: \(reason)")
    }

    public static func invalidJSON(_ path: String, _ reason: String) -> Self {
        Self(.configInvalidJSON, "configuration file \(path) is not valid JSON: \(reason)")
    }

    public static func unknownKey(_ key: String, file path: String, suggestion: String?) -> Self {
        let hint = suggestion.map { " (did you mean \($0)?)" } ?? ""
        return Self(.configUnknownKey, "configuration file \(path): unknown key \(key)\(hint)")
    }

    public static func unknownVariable(_ name: String, suggestion: String?) -> Self {
        let hint = suggestion.map { " (did you mean \($0)?)" } ?? ""
        return Self(.configUnknownKey, "environment: unknown variable \(name)\(hint)")
    }

    public static func secretMissing(_ detail: String) -> Self {
        Self(.configSecretMissing, detail)
    }

    public static func secretPermissions(_ path: String, key: String? = nil) -> Self {
        Self(
            .configSecretPermissions,
            "the secret file \(path)\(key.map { " (\($0))" } ?? "") is readable by group or others; make it private with: chmod 600 \(path)"
        )
    }

    /// A secret that cannot be read is a missing secret (`config.secretMissing`).
    public static func fileUnreadable(key: String, path: String, reason: String, isSecret: Bool) -> Self {
        Self(
            isSecret ? .configSecretMissing : .configFileUnreadable,
            "\(key) names \(path), which cannot be read: \(reason)")
    }

    /// The same error with `advice` after its message (what to do next).
    public func advising(_ advice: String) -> Self {
        Self(code, message + ". " + advice)
    }

    public static func fileInvalid(key: String, path: String, expected: String) -> Self {
        Self(.configFileInvalid, "\(key) names \(path), which is not \(expected)")
    }

    public static func insecureURL(_ url: String, key: String) -> Self {
        Self(.configInsecureURL, "\(key) \(url) uses plain http to a host that is not loopback; use https")
    }

    /// A value left as the shipped example's placeholder (a reserved name such as
    /// `tmp.example.com`).
    public static func placeholder(key: String, value: String) -> Self {
        Self(
            .configInvalidValue,
            "\(key) is still the placeholder \(value); set it to the real address (configuration file or \(environmentName(for: key)))"
        )
    }

    /// A value that loaded but cannot be used as it is (`service.socket-mode` 0777).
    public static func unusableValue(key: String, _ reason: String) -> Self {
        Self(.configInvalidValue, "\(key): \(reason)")
    }

    public static func invalidValue(key: String, origin: ConfigOrigin, expected: String) -> Self {
        Self(.configInvalidValue, "\(origin.description(forKey: key)): expected \(expected)")
    }
}

/// Where a configuration value came from, for messages and relative-path resolution.
public enum ConfigOrigin: Sendable, Equatable {
    case file(String)
    case environment

    public func description(forKey key: String) -> String {
        switch self {
        case .file(let path): "configuration file \(path): key \(key)"
        case .environment: "environment variable \(ConfigurationError.environmentName(for: key))"
        }
    }
}

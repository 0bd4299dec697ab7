/// A configuration problem: a missing or malformed file, an unknown key, or a value of the
/// wrong type or range. The message names the file (or environment variable) and the key.
public struct ConfigurationError: CodedError, Equatable, CustomStringConvertible {
    private enum Kind: String, Sendable {
        case fileMissing = "config.fileMissing"
        case unreadable = "config.unreadable"
        case invalidJSON = "config.invalidJSON"
        case unknownKey = "config.unknownKey"
        case invalidValue = "config.invalidValue"
        case secretMissing = "config.secretMissing"
        case secretPermissions = "config.secretPermissions"
        case fileUnreadable = "config.fileUnreadable"
        case fileInvalid = "config.fileInvalid"
        case insecureURL = "config.insecureURL"
    }

    private let kind: Kind
    public let message: String
    public var code: String { kind.rawValue }
    public var description: String { message }

    private init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    static func missingSetting(_ key: String, purpose: String) -> Self {
        Self(.secretMissing, "\(key) is not set (configuration file or \(ConfigKeys.environmentName(for: key))); it is needed \(purpose)")
    }

    static func fileMissing(_ path: String, namedBy origin: String) -> Self {
        Self(.fileMissing, "configuration file \(path) (named by \(origin)) does not exist")
    }

    static func unreadable(_ path: String, _ reason: String) -> Self {
        Self(.unreadable, "configuration file \(path) cannot be read: \(reason)")
    }

    static func invalidJSON(_ path: String, _ reason: String) -> Self {
        Self(.invalidJSON, "configuration file \(path) is not valid JSON: \(reason)")
    }

    static func unknownKey(_ key: String, file path: String, suggestion: String?) -> Self {
        let hint = suggestion.map { " (did you mean \($0)?)" } ?? ""
        return Self(.unknownKey, "configuration file \(path): unknown key \(key)\(hint)")
    }

    static func secretMissing(_ detail: String) -> Self {
        Self(.secretMissing, detail)
    }

    static func secretPermissions(_ path: String) -> Self {
        Self(.secretPermissions, "the secret file \(path) is readable by group or others; make it private with: chmod 600 \(path)")
    }

    /// A secret that cannot be read is a missing secret (`config.secretMissing`).
    static func fileUnreadable(key: String, path: String, reason: String, isSecret: Bool) -> Self {
        Self(isSecret ? .secretMissing : .fileUnreadable, "\(key) names \(path), which cannot be read: \(reason)")
    }

    static func fileInvalid(key: String, path: String, expected: String) -> Self {
        Self(.fileInvalid, "\(key) names \(path), which is not \(expected)")
    }

    static func insecureURL(_ url: String) -> Self {
        Self(.insecureURL, "tmp.base-url \(url) uses plain http to a host that is not loopback; use https")
    }

    static func invalidValue(key: String, origin: ConfigOrigin, expected: String) -> Self {
        Self(.invalidValue, "\(origin.description(forKey: key)): expected \(expected)")
    }
}

/// Where a configuration value came from, for messages and relative-path resolution.
public enum ConfigOrigin: Sendable, Equatable {
    case file(String)
    case environment

    func description(forKey key: String) -> String {
        switch self {
        case .file(let path): "configuration file \(path): key \(key)"
        case .environment: "environment variable \(ConfigKeys.environmentName(for: key))"
        }
    }
}

import Configuration
import ErrorCodes
import Foundation

/// The configuration sources below the flags, queried in precedence order: the
/// `TOKENCTL_*` environment first, then the file. Each lookup returns the value and where
/// it came from, and a value of the wrong type is an error naming its source and key
/// (never silently replaced by a default).
struct ConfigLayers {
    var environment: any ConfigProvider
    var file: (values: ConfigFileValues, path: String)?
    /// Where each key found so far came from, for `config show`.
    let origins = FoundOrigins()
    /// systemd's `$CREDENTIALS_DIRECTORY` (`LoadCredential=`), where relative file names are
    /// looked up first.
    let credentialsDirectory: String?

    init(environment: [String: String]) {
        self.environment = EnvironmentVariablesProvider(environmentVariables: environment)
            .prefixKeys(with: ConfigKey(["tokenctl"]))
        credentialsDirectory = environment["CREDENTIALS_DIRECTORY"].flatMap { $0.hasPrefix("/") ? $0 : nil }
    }

    func string(_ key: String) throws -> (String, ConfigOrigin)? {
        try lookup(key, .string, expected: "a string") { if case .string(let v) = $0 { v } else { nil } }
    }

    func stringArray(_ key: String) throws -> ([String], ConfigOrigin)? {
        try lookup(key, .stringArray, expected: "a list of strings") {
            if case .stringArray(let v) = $0 { v } else { nil }
        }
    }

    func intArray(_ key: String) throws -> ([Int], ConfigOrigin)? {
        try lookup(key, .intArray, expected: "a list of integers") { if case .intArray(let v) = $0 { v } else { nil } }
    }

    func bool(_ key: String) throws -> Bool? {
        try lookup(key, .bool, expected: "true or false") { if case .bool(let v) = $0 { v } else { nil } }?.0
    }

    func int(_ key: String, min: Int) throws -> Int? {
        guard
            let (value, origin) = try lookup(
                key, .int, expected: "an integer", { if case .int(let v) = $0 { v } else { nil } })
        else {
            return nil
        }
        guard value >= min else {
            throw ConfigurationError.invalidValue(key: key, origin: origin, expected: "an integer of at least \(min)")
        }
        return value
    }

    /// A file path. A relative one names a credential when systemd passed one of that name
    /// (`LoadCredential=NAME:…` puts it in `$CREDENTIALS_DIRECTORY`); otherwise, in the
    /// configuration file, it is relative to the file. So `"bearer-token-file": "tmp.token"`
    /// in `/etc/tokenctl/config.json` reads the unit's credential under systemd and
    /// `/etc/tokenctl/tmp.token` at an operator's shell.
    func path(_ key: String) throws -> String? {
        guard let (value, origin) = try string(key) else { return nil }
        guard !value.isEmpty else {
            throw ConfigurationError.invalidValue(key: key, origin: origin, expected: "a file path")
        }
        if !value.hasPrefix("/"), let credentialsDirectory {
            let credential = credentialsDirectory + "/" + value
            if FileManager.default.fileExists(atPath: credential) { return credential }
        }
        return value.resolvingPath(from: origin)
    }

    /// An http or https URL with a host.
    func url(_ key: String) throws -> String? {
        guard let (value, origin) = try string(key) else { return nil }
        guard Self.isHTTPURL(value) else {
            throw ConfigurationError.invalidValue(
                key: key, origin: origin, expected: "an http:// or https:// URL with a host")
        }
        return value
    }

    static func isHTTPURL(_ value: String) -> Bool {
        let lower = value.lowercased()
        let rest =
            lower.hasPrefix("https://") ? lower.dropFirst(8) : lower.hasPrefix("http://") ? lower.dropFirst(7) : nil
        guard let rest, let first = rest.first, first != "/", first != ":" else { return false }
        return !value.contains(where: { $0.isWhitespace })
    }

    /// A list of JSON objects: in the file as it is, in the environment as JSON text.
    func objects(_ key: String) throws -> ([[String: Any]], ConfigOrigin)? {
        let absoluteKey = AbsoluteConfigKey(key.split(separator: ".").map(String.init))
        let expected = "a list of JSON objects"
        if let text = try? environment.value(forKey: absoluteKey, type: .string).value?.content,
            case .string(let json) = text
        {
            guard let objects = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [[String: Any]] else {
                throw ConfigurationError.invalidValue(
                    key: key, origin: .environment, expected: expected + " (JSON text)")
            }
            origins.found[key] = .environment
            return (objects, .environment)
        }
        guard let file, let node = file.values.node(key) else { return nil }
        guard let objects = node as? [[String: Any]] else {
            throw ConfigurationError.invalidValue(key: key, origin: .file(file.path), expected: expected)
        }
        origins.found[key] = .file(file.path)
        return (objects, .file(file.path))
    }

    private func lookup<T>(
        _ key: String, _ type: ConfigType, expected: String, _ extract: (ConfigContent) -> T?
    ) throws -> (T, ConfigOrigin)? {
        let absoluteKey = AbsoluteConfigKey(key.split(separator: ".").map(String.init))
        var sources: [(ConfigOrigin, () throws -> ConfigContent?)] = [
            (.environment, { try environment.value(forKey: absoluteKey, type: type).value?.content })
        ]
        if let file { sources.append((.file(file.path), { try file.values.content(key, type) })) }
        for (origin, read) in sources {
            let found: ConfigContent?
            do {
                found = try read()
            } catch {
                throw ConfigurationError.invalidValue(key: key, origin: origin, expected: expected)
            }
            guard let content = found else { continue }
            guard let value = extract(content) else {
                throw ConfigurationError.invalidValue(key: key, origin: origin, expected: expected)
            }
            origins.found[key] = origin
            return (value, origin)
        }
        return nil
    }
}

/// The origin of every key a lookup found.
final class FoundOrigins {
    var found: [String: ConfigOrigin] = [:]
}

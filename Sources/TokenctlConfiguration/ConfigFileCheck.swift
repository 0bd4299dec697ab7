import ErrorCodes
import Foundation
import Logging

/// Checks a configuration file before its values are read: it must be a JSON object, and
/// every key must be one tokenctl knows, so that a misspelt setting is an error instead
/// of a silently ignored line.
enum ConfigFileCheck {
    /// - Returns: the parsed top-level object.
    static func validate(_ data: Data, path: String) throws -> [String: Any] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            let detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "syntax error"
            throw ConfigurationError.invalidJSON(path, detail)
        }
        guard let root = object as? [String: Any] else {
            throw ConfigurationError.invalidJSON(path, "the top level must be an object")
        }
        for key in try leafKeys(root, prefix: "", file: path).sorted() where !ConfigKeys.all.contains(key) {
            // A section given a value (`{"tmp": "x"}`): the section is known, its type is wrong.
            if ConfigKeys.all.contains(where: { $0.hasPrefix(key + ".") }) {
                throw ConfigurationError.invalidValue(
                    key: key, origin: .file(path), expected: "an object of \(key).* keys")
            }
            throw ConfigurationError.unknownKey(
                key, file: path, suggestion: suggestion(for: key, among: ConfigKeys.all))
        }
        return root
    }

    /// Dotted paths of the non-object values (`{"tmp": {"timeout-ms": 1}}` → `tmp.timeout-ms`).
    private static func leafKeys(_ object: [String: Any], prefix: String, file: String) throws -> [String] {
        try object.flatMap { name, value -> [String] in
            let path = prefix + name
            guard let nested = value as? [String: Any] else { return [path] }
            if ConfigKeys.all.contains(path) {
                throw ConfigurationError.invalidValue(
                    key: path, origin: .file(file), expected: "a value, not an object")
            }
            return nested.isEmpty ? [path] : try leafKeys(nested, prefix: path + ".", file: file)
        }
    }

    /// Refuses a `TOKENCTL_*` variable that is neither a key's nor one of
    /// ``ConfigKeys/otherVariables``, as the file refuses an unknown key.
    static func validate(environment: [String: String]) throws(ConfigurationError) {
        for name in environment.keys.sorted() where name.hasPrefix("TOKENCTL_") && !ConfigKeys.variables.contains(name)
        {
            throw .unknownVariable(name, suggestion: suggestion(for: name, among: ConfigKeys.variables))
        }
        // The level is read before the settings are; a level the flag would refuse is refused
        // here too, not silently replaced by the default.
        if let level = environment[ConfigKeys.logLevelVariable], Logger.Level(rawValue: level) == nil {
            throw .invalidValue(
                key: "log.level", origin: .environment,
                expected: "one of trace, debug, info, notice, warning, error, critical")
        }
    }

    /// The known name closest in spelling, when it is close enough to be a typo.
    static func suggestion(for key: String, among names: Set<String>) -> String? {
        Spelling.closest(to: key, among: names.sorted(), maximumDistance: 3)
    }
}

import Configuration
import Foundation

/// The values of a configuration file, from the object ``ConfigFileCheck`` already parsed:
/// the file is read and parsed once per command. `null` means "not set".
struct ConfigFileValues {
    private struct Mismatch: Error {}

    private let root: [String: Any]

    init(_ root: [String: Any]) {
        self.root = root
    }

    /// The value at a dotted key as `type`; nil when absent or null.
    /// - Throws: when the value is of another type.
    func content(_ key: String, _ type: ConfigType) throws -> ConfigContent? {
        guard let value = node(key) else { return nil }
        switch type {
        case .string: return .string(try Self.string(value))
        case .int: return .int(try Self.int(value))
        case .bool: return .bool(try Self.bool(value))
        case .stringArray: return .stringArray(try Self.array(value).map(Self.string))
        case .intArray: return .intArray(try Self.array(value).map(Self.int))
        default: throw Mismatch()
        }
    }

    /// The value at a dotted key as parsed; nil when absent or null.
    func node(_ key: String) -> Any? {
        var node: Any? = root
        for name in key.split(separator: ".") {
            node = (node as? [String: Any])?[String(name)]
        }
        guard let value = node, !(value is NSNull) else { return nil }
        return value
    }

    private static func string(_ value: Any) throws -> String {
        guard let text = value as? String else { throw Mismatch() }
        return text
    }

    private static func int(_ value: Any) throws -> Int {
        guard !(value is String), !isBoolean(value), let number = value as? NSNumber,
            let integer = Int(exactly: number.doubleValue)
        else { throw Mismatch() }
        return integer
    }

    private static func bool(_ value: Any) throws -> Bool {
        guard isBoolean(value), let flag = value as? Bool else { throw Mismatch() }
        return flag
    }

    private static func array(_ value: Any) throws -> [Any] {
        guard let items = value as? [Any] else { throw Mismatch() }
        return items
    }

    private static func isBoolean(_ value: Any) -> Bool {
        if value is Bool, !(value is NSNumber) { return true }
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }
}

/// A JSON object with keys in insertion order, for output whose key order is documented.
/// Values are strings, integers, booleans, null, or nested objects and arrays.
public struct JSONObject: Sendable, Equatable {
    public indirect enum Value: Sendable, Equatable {
        case string(String)
        case int(Int)
        case bool(Bool)
        case null
        case object(JSONObject)
        case array([Value])
    }

    private var members: [(String, Value)] = []

    public init(_ members: KeyValuePairs<String, Value>) {
        self.members = members.map { ($0.key, $0.value) }
    }

    /// Adds the members of `other` at the end.
    public mutating func append(contentsOf other: JSONObject) {
        members.append(contentsOf: other.members)
    }

    /// Adds a member at the end.
    public mutating func append(_ key: String, _ value: Value) {
        members.append((key, value))
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.elementsEqual(rhs.members) { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    /// Compact JSON text on one line.
    public var text: String { Value.object(self).text }

    fileprivate static func write(_ value: Value, to output: inout String) {
        switch value {
        case .string(let string): writeString(string, to: &output)
        case .int(let int): output += String(int)
        case .bool(let bool): output += bool ? "true" : "false"
        case .null: output += "null"
        case .array(let values):
            output += "["
            for (index, element) in values.enumerated() {
                if index > 0 { output += "," }
                write(element, to: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (index, (key, element)) in object.members.enumerated() {
                if index > 0 { output += ", " }
                writeString(key, to: &output)
                output += ": "
                write(element, to: &output)
            }
            output += "}"
        }
    }

    /// RFC 8259 string escaping: quote, backslash and control characters, and the other
    /// characters ``SafeText`` calls unsafe (bidirectional overrides, C1 controls, …) as
    /// `\uXXXX`, so JSON printed on a terminal shows them instead of obeying them.
    private static func isPlainASCII(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { bytes in
            for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5C || byte >= 0x7F { return false }
            return true
        }
    }

    private static func writeString(_ string: String, to output: inout String) {
        output += "\""
        // Most strings (identifiers, masked ones with `…`, hashes, timestamps) need no
        // escaping: append them whole. Printable ASCII without a quote or backslash is
        // told in one pass over contiguous bytes (the audit hashes two objects per line).
        if Self.isPlainASCII(string) || (!string.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) && !SafeText.containsUnsafe(string)) {
            output += string
            output += "\""
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where SafeText.isUnsafe(scalar):
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

extension JSONObject.Value {
    /// Compact JSON text on one line.
    public var text: String {
        var output = ""
        output.reserveCapacity(512)
        JSONObject.write(self, to: &output)
        return output
    }

    /// A string, or null when absent.
    public static func optional(_ string: String?) -> Self {
        string.map(Self.string) ?? .null
    }
}

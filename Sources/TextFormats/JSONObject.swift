/// A JSON object with keys in insertion order, for output whose key order is documented; its
/// ``Value`` is the one JSON value type (also read from text: `JSONObject+Codable.swift`).
/// Values are strings, integers, other numbers, booleans, null, or nested objects and arrays.
public struct JSONObject: Sendable, Equatable {
    public indirect enum Value: Sendable, Equatable {
        case string(String)
        case int(Int)
        /// A number that is not an integer (integers are ``int``).
        case number(Double)
        case bool(Bool)
        case null
        case object(JSONObject)
        case array([Value])
    }

    /// The members in order.
    public private(set) var members: [(String, Value)] = []

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

    /// Writes UTF-8 into a byte array: appending bytes costs none of a String's checks.
    fileprivate static func write(_ value: Value, to output: inout [UInt8]) {
        switch value {
        case .string(let string): writeString(string, to: &output)
        case .int(let int): output.append(contentsOf: String(int).utf8)
        // Swift's shortest text that reads back as the same Double, which JSON takes as it is.
        case .number(let number): output.append(contentsOf: (number.isFinite ? String(number) : "null").utf8)
        case .bool(let bool): output.append(contentsOf: (bool ? "true" : "false").utf8)
        case .null: output.append(contentsOf: "null".utf8)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, (key, element)) in object.members.enumerated() {
                if index > 0 { output.append(contentsOf: ", ".utf8) }
                writeString(key, to: &output)
                output.append(contentsOf: ": ".utf8)
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// RFC 8259 string escaping: quote, backslash and control characters, and the other
    /// characters ``SafeText`` calls unsafe (bidirectional overrides, C1 controls, …) as
    /// `\uXXXX`, so JSON printed on a terminal shows them instead of obeying them.
    public static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings (identifiers, masked ones with `…`, hashes, timestamps) need no
        // escaping and are appended whole: printable ASCII without a quote or backslash is
        // told in one pass over contiguous bytes.
        var string = string
        let plainASCII = string.withUTF8 { bytes in
            for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5C || byte >= 0x7F { return false }
            output.append(contentsOf: bytes)
            return true
        }
        if plainASCII {
            output.append(UInt8(ascii: "\""))
            return
        }
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }),
            !SafeText.containsUnsafe(string)
        {
            output.append(contentsOf: string.utf8)
            output.append(UInt8(ascii: "\""))
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output.append(contentsOf: "\\\"".utf8)
            case "\\": output.append(contentsOf: "\\\\".utf8)
            case "\n": output.append(contentsOf: "\\n".utf8)
            case "\r": output.append(contentsOf: "\\r".utf8)
            case "\t": output.append(contentsOf: "\\t".utf8)
            case _ where SafeText.isUnsafe(scalar):
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16)
                    output.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                }
            default: output.append(contentsOf: String(scalar).utf8)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

extension JSONObject.Value {
    /// Compact JSON text on one line.
    public var text: String {
        String(decoding: utf8, as: UTF8.self)
    }

    public var utf8: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(512)
        JSONObject.write(self, to: &output)
        return output
    }

    /// A string, or null when absent.
    public static func optional(_ string: String?) -> Self {
        string.map(Self.string) ?? .null
    }
}

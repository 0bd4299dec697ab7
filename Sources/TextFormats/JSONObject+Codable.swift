/// JSON text read into the one JSON value type (an app's credentials object, say) and written
/// back: an integer stays an integer, any other number is a `number`, and an object's members
/// come sorted by key (a decoder does not keep the text's order; sorted, the same text always
/// reads as the same value).
extension JSONObject.Value: Codable {
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var object = JSONObject([:])
            for key in keyed.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                object.append(key.stringValue, try keyed.decode(JSONObject.Value.self, forKey: key))
            }
            self = .object(object)
            return
        }
        if var list = try? decoder.unkeyedContainer() {
            var values: [JSONObject.Value] = []
            while !list.isAtEnd { values.append(try list.decode(JSONObject.Value.self)) }
            self = .array(values)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let bool = try? single.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? single.decode(Int.self) {
            self = .int(int)
        } else if let number = try? single.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let object):
            var keyed = encoder.container(keyedBy: Key.self)
            for (key, value) in object.members { try keyed.encode(value, forKey: Key(stringValue: key)) }
        case .array(let values):
            var list = encoder.unkeyedContainer()
            for value in values { try list.encode(value) }
        case .string(let string):
            var single = encoder.singleValueContainer()
            try single.encode(string)
        case .int(let int):
            var single = encoder.singleValueContainer()
            try single.encode(int)
        case .number(let number):
            var single = encoder.singleValueContainer()
            try single.encode(number)
        case .bool(let bool):
            var single = encoder.singleValueContainer()
            try single.encode(bool)
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        }
    }
}

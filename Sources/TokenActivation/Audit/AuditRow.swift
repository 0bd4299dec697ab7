import Crypto

/// One append-only audit row: the "started" or "finished" half of an activation attempt.
struct AuditRow: Sendable, Equatable {
    enum Event: String, Sendable { case started, finished }

    var attemptID: Int64
    var event: Event
    var at: Timestamp
    var requestID: String
    var serialNumber: String
    var passTypeIdentifier: String?
    var tokenUniqueReference: String?
    var device: String?
    var deeplinkHash: String
    var ownerPID: Int32?
    var ownerStart: String?
    var outcome: String?
    var errorCode: String?
    var httpStatus: Int?
    var cardLast4Digits: String?
    var comment: String?
    var latencyMilliseconds: Int?

    /// SHA-256 (hex) over the previous row's hash and this row's content, in a fixed
    /// order and encoding, so any change to a stored row breaks the chain from there on.
    func hash(previous: String) -> String {
        Hex.encode(SHA256.hash(data: hashedText(previous: previous)))
    }

    /// The hashed text: a JSON object with its keys in a fixed order, `", "` and `": "`
    /// between them (``JSONObject``'s text of the same members, written here without
    /// building one: the database writer hashes two rows per activation).
    func hashedText(previous: String) -> [UInt8] {
        var text = HashedText()
        text.member("previous", previous, first: true)
        text.member("attempt", Int(attemptID))
        text.member("event", event.rawValue)
        text.member("at", at.iso8601)
        text.member("request", requestID)
        text.member("serial", serialNumber)
        text.member("passType", passTypeIdentifier)
        text.member("token", tokenUniqueReference)
        text.member("device", device)
        text.member("deeplink", deeplinkHash)
        text.member("pid", ownerPID.map { Int($0) })
        text.member("ownerStart", ownerStart)
        text.member("outcome", outcome)
        text.member("error", errorCode)
        text.member("http", httpStatus)
        text.member("last4", cardLast4Digits)
        text.member("comment", comment)
        text.member("latency", latencyMilliseconds)
        text.bytes.append(UInt8(ascii: "}"))
        return text.bytes
    }

    private struct HashedText {
        var bytes: [UInt8] = [UInt8(ascii: "{")]

        init() {
            bytes.reserveCapacity(640)
        }

        /// Literal text, copied whole (a String's UTF-8 view is appended byte by byte).
        mutating func append(_ text: StaticString) {
            bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        mutating func key(_ key: StaticString, first: Bool) {
            if !first { append(", ") }
            bytes.append(UInt8(ascii: "\""))
            append(key)
            append("\": ")
        }

        mutating func member(_ name: StaticString, _ value: String?, first: Bool = false) {
            key(name, first: first)
            if let value { JSONObject.writeString(value, to: &bytes) } else { append("null") }
        }

        mutating func member(_ name: StaticString, _ value: Int?) {
            key(name, first: false)
            guard let value else { return append("null") }
            var text = String(value)
            text.withUTF8 { bytes.append(contentsOf: $0) }
        }
    }

    static let genesisHash = String(repeating: "0", count: 64)
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// Lower-case hexadecimal.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

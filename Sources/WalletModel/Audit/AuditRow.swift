import Crypto
import HexCoding
import TextFormats

/// One append-only audit row: the "started" or "finished" half of an activation attempt.
public struct AuditRow: Sendable, Equatable {
    public enum Event: String, Sendable { case started, finished }

    public var attemptID: Int64
    public var event: Event
    public var at: Timestamp
    public var requestID: String
    public var serialNumber: String
    public var passTypeIdentifier: String?
    public var tokenUniqueReference: String?
    public var device: String?
    public var deeplinkHash: String
    public var ownerPID: Int32?
    public var ownerStart: String?
    public var outcome: String?
    public var errorCode: String?
    public var httpStatus: Int?
    public var cardLast4Digits: String?
    public var comment: String?
    public var latencyMilliseconds: Int?

    public init(
        attemptID: Int64, event: Event, at: Timestamp, requestID: String, serialNumber: String,
        passTypeIdentifier: String? = nil, tokenUniqueReference: String? = nil, device: String? = nil,
        deeplinkHash: String,
        ownerPID: Int32? = nil, ownerStart: String? = nil, outcome: String? = nil, errorCode: String? = nil,
        httpStatus: Int? = nil,
        cardLast4Digits: String? = nil, comment: String? = nil, latencyMilliseconds: Int? = nil
    ) {
        self.attemptID = attemptID
        self.event = event
        self.at = at
        self.requestID = requestID
        self.serialNumber = serialNumber
        self.passTypeIdentifier = passTypeIdentifier
        self.tokenUniqueReference = tokenUniqueReference
        self.device = device
        self.deeplinkHash = deeplinkHash
        self.ownerPID = ownerPID
        self.ownerStart = ownerStart
        self.outcome = outcome
        self.errorCode = errorCode
        self.httpStatus = httpStatus
        self.cardLast4Digits = cardLast4Digits
        self.comment = comment
        self.latencyMilliseconds = latencyMilliseconds
    }

    /// SHA-256 (hex) over the previous row's hash and this row's content, in a fixed
    /// order and encoding, so any change to a stored row breaks the chain from there on.
    public func hash(previous: String) -> String {
        Hex.encode(SHA256.hash(data: hashedText(previous: previous)))
    }

    /// The hashed text: a JSON object with its keys in a fixed order, `", "` and `": "`
    /// between them (``JSONObject``'s text of the same members, written here without
    /// building one: the database writer hashes two rows per activation).
    public func hashedText(previous: String) -> [UInt8] {
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

    public static let genesisHash = String(repeating: "0", count: 64)
}

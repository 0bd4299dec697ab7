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
        let content = JSONObject([
            "previous": .string(previous), "attempt": .int(Int(attemptID)), "event": .string(event.rawValue),
            "at": .string(at.iso8601), "request": .string(requestID), "serial": .string(serialNumber),
            "passType": .optional(passTypeIdentifier), "token": .optional(tokenUniqueReference),
            "device": .optional(device), "deeplink": .string(deeplinkHash),
            "pid": ownerPID.map { .int(Int($0)) } ?? .null, "ownerStart": .optional(ownerStart),
            "outcome": .optional(outcome), "error": .optional(errorCode),
            "http": httpStatus.map { .int($0) } ?? .null, "last4": .optional(cardLast4Digits),
            "comment": .optional(comment), "latency": latencyMilliseconds.map { .int($0) } ?? .null,
        ]).utf8
        return Hex.encode(SHA256.hash(data: content))
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

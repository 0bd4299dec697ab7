import TextFormats
import WalletModel

extension AuditEntry {
    /// The documented JSON shape, identifiers masked unless `reveal`.
    public func json(reveal: Bool) -> JSONObject {
        JSONObject([
            "id": .int(Int(id)), "requestId": .string(requestID),
            "startedAt": .string(startedAt.iso8601), "finishedAt": .optional(finishedAt?.iso8601),
            "serialNumber": .string(Mask.identifier(serialNumber, reveal: reveal)),
            "tokenUniqueReference": .optional(tokenUniqueReference.map { Mask.identifier($0, reveal: reveal) }),
            "outcome": .optional(outcome), "errorCode": .optional(errorCode),
            "httpStatus": httpStatus.map { .int($0) } ?? .null, "cardLast4Digits": .optional(cardLast4Digits),
            "comment": .optional(comment), "latencyMs": latencyMilliseconds.map { .int($0) } ?? .null,
        ])
    }
}

extension AuditEntry {
    /// ``json(reveal:)`` with what `audit show` also prints: the pass type, the device label
    /// and the deeplink's keyed hash.
    public func detailedJSON(reveal: Bool) -> JSONObject {
        var object = json(reveal: reveal)
        object.append("passTypeIdentifier", .optional(passTypeIdentifier))
        object.append("device", .optional(device))
        object.append("deeplinkHash", .string(deeplinkHash))
        return object
    }
}

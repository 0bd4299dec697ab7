import GRDB

/// One activation attempt as auditors see it: the "started" and "finished" rows merged.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var requestID: String
    public var startedAt: Timestamp
    public var finishedAt: Timestamp?
    public var serialNumber: String
    public var passTypeIdentifier: String?
    public var tokenUniqueReference: String?
    public var device: String?
    /// Nil while the attempt is still open (in flight, or its process was killed).
    public var outcome: String?
    public var errorCode: String?
    public var httpStatus: Int?
    public var cardLast4Digits: String?
    public var comment: String?
    public var latencyMilliseconds: Int?
    public var deeplinkHash: String

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

/// Which audit entries to list.
public struct AuditFilter: Sendable, Equatable {
    public var serialNumber: String?
    public var outcome: String?
    public var since: Timestamp?
    public var until: Timestamp?
    public var id: Int64?
    /// Only attempts with no "finished" entry: in flight now, or left by a process that died.
    public var unfinished: Bool

    public init(serialNumber: String? = nil, outcome: String? = nil, since: Timestamp? = nil, until: Timestamp? = nil, id: Int64? = nil, unfinished: Bool = false) {
        self.serialNumber = serialNumber
        self.outcome = outcome
        self.since = since
        self.until = until
        self.id = id
        self.unfinished = unfinished
    }
}

extension AuditLog {
    /// Streams the merged entries matching `filter`, oldest first.
    static func forEachEntry(_ filter: AuditFilter, _ db: Database, _ body: (AuditEntry) throws -> Void) throws {
        var sql = """
            SELECT s.attempt_id, s.request_id, s.at AS started_at, f.at AS finished_at, s.serial_number,
                   s.pass_type_identifier, s.token_unique_reference, s.device_label, f.outcome, f.error_code,
                   f.http_status, f.card_last4, f.comment, f.latency_ms, s.deeplink_hash
            FROM audit_row s
            LEFT JOIN audit_row f ON f.attempt_id = s.attempt_id AND f.event = 'finished'
            WHERE s.event = 'started'
            """
        var arguments: StatementArguments = []
        if let serial = filter.serialNumber { sql += " AND s.serial_number = ?"; arguments += [serial] }
        if let outcome = filter.outcome { sql += " AND f.outcome = ?"; arguments += [outcome] }
        if let since = filter.since { sql += " AND s.at >= ?"; arguments += [since.iso8601] }
        if let until = filter.until { sql += " AND s.at <= ?"; arguments += [until.iso8601] }
        if let id = filter.id { sql += " AND s.attempt_id = ?"; arguments += [id] }
        if filter.unfinished { sql += " AND f.attempt_id IS NULL" }
        let rows = try Row.fetchCursor(db, sql: sql + " ORDER BY s.attempt_id", arguments: arguments)
        while let row = try rows.next() {
            try body(AuditEntry(
                id: row["attempt_id"], requestID: row["request_id"],
                startedAt: Timestamp(iso8601: row["started_at"]) ?? Timestamp(milliseconds: 0),
                finishedAt: (row["finished_at"] as String?).flatMap { Timestamp(iso8601: $0) },
                serialNumber: row["serial_number"], passTypeIdentifier: row["pass_type_identifier"],
                tokenUniqueReference: row["token_unique_reference"], device: row["device_label"],
                outcome: row["outcome"], errorCode: row["error_code"], httpStatus: row["http_status"],
                cardLast4Digits: row["card_last4"], comment: row["comment"], latencyMilliseconds: row["latency_ms"],
                deeplinkHash: row["deeplink_hash"]
            ))
        }
    }
}

import PostgresNIO

/// An audit row as stored, with its place in the chain.
public struct StoredAuditRow: Sendable, Equatable {
    public var seq: Int64
    public var values: AuditRowValues
    public var previousHash: String
    public var hash: String

    public init(seq: Int64, values: AuditRowValues, previousHash: String, hash: String) {
        self.seq = seq
        self.values = values
        self.previousHash = previousHash
        self.hash = hash
    }
}

/// The "started" and "finished" rows of one attempt, merged (`audit list`).
public struct StoredAuditEntry: Sendable, Equatable {
    public var attemptID: Int64
    public var requestID: String
    public var startedAt: String
    public var finishedAt: String?
    public var serialNumber: String
    public var passTypeIdentifier: String?
    public var tokenUniqueReference: String?
    public var device: String?
    public var outcome: String?
    public var errorCode: String?
    public var httpStatus: Int?
    public var cardLast4Digits: String?
    public var comment: String?
    public var latencyMilliseconds: Int?
    public var deeplinkHash: String
}

/// Which entries `audit list` wants; nil matches everything.
public struct StoredAuditFilter: Sendable {
    public var serialNumber: String?
    public var outcome: String?
    public var since: String?
    public var until: String?
    public var attemptID: Int64?
    public var unfinished: Bool

    public init(serialNumber: String?, outcome: String?, since: String?, until: String?, attemptID: Int64?, unfinished: Bool) {
        self.serialNumber = serialNumber
        self.outcome = outcome
        self.since = since
        self.until = until
        self.attemptID = attemptID
        self.unfinished = unfinished
    }
}

extension PostgresStore {
    static let auditColumns = """
        seq, attempt_id, event, at, request_id, serial_number, pass_type_identifier, token_unique_reference, device_label,
        deeplink_hash, owner_pid, owner_start, outcome, error_code, http_status, card_last4, comment, latency_ms, previous_hash, hash
        """

    /// Streams every audit row in chain order from one snapshot.
    public func forEachAuditRow(_ body: (StoredAuditRow) throws -> Void) throws {
        try streaming("SELECT \(unescaped: Self.auditColumns) FROM audit_row ORDER BY seq") { row in
            let cells = row.makeRandomAccess()
            let values = AuditRowValues(
                attempt: try cells[1].decode(Int64.self), event: try cells[2].decode(String.self), at: try cells[3].decode(String.self),
                request: try cells[4].decode(String.self), serial: try cells[5].decode(String.self), passType: try cells[6].decode(String?.self),
                token: try cells[7].decode(String?.self), device: try cells[8].decode(String?.self), deeplink: try cells[9].decode(String.self),
                pid: try cells[10].decode(Int32?.self), ownerStart: try cells[11].decode(String?.self), outcome: try cells[12].decode(String?.self),
                error: try cells[13].decode(String?.self), http: try cells[14].decode(Int?.self), last4: try cells[15].decode(String?.self),
                comment: try cells[16].decode(String?.self), latency: try cells[17].decode(Int?.self), rest: ""
            )
            try body(StoredAuditRow(seq: try cells[0].decode(Int64.self), values: values, previousHash: try cells[18].decode(String.self), hash: try cells[19].decode(String.self)))
        }
    }

    public func auditRowCount() throws -> Int {
        try query("SELECT count(*) FROM audit_row").first?.decode(Int.self) ?? 0
    }

    /// Streams the merged entries matching `filter`, oldest first.
    public func forEachAuditEntry(_ filter: StoredAuditFilter, _ body: (StoredAuditEntry) throws -> Void) throws {
        let select: PostgresQuery = """
            SELECT s.attempt_id, s.request_id, s.at, f.at, s.serial_number, s.pass_type_identifier, s.token_unique_reference,
                   s.device_label, f.outcome, f.error_code, f.http_status, f.card_last4, f.comment, f.latency_ms, s.deeplink_hash
            FROM audit_row s
            LEFT JOIN audit_row f ON f.attempt_id = s.attempt_id AND f.event = 'finished'
            WHERE s.event = 'started'
              AND (\(filter.serialNumber)::text IS NULL OR s.serial_number = \(filter.serialNumber))
              AND (\(filter.outcome)::text IS NULL OR f.outcome = \(filter.outcome))
              AND (\(filter.since)::text IS NULL OR s.at >= \(filter.since))
              AND (\(filter.until)::text IS NULL OR s.at <= \(filter.until))
              AND (\(filter.attemptID)::bigint IS NULL OR s.attempt_id = \(filter.attemptID))
              AND (NOT \(filter.unfinished) OR f.attempt_id IS NULL)
            ORDER BY s.attempt_id
            """
        try streaming(select) { row in
            let cells = row.makeRandomAccess()
            try body(StoredAuditEntry(
                attemptID: try cells[0].decode(Int64.self), requestID: try cells[1].decode(String.self), startedAt: try cells[2].decode(String.self),
                finishedAt: try cells[3].decode(String?.self), serialNumber: try cells[4].decode(String.self),
                passTypeIdentifier: try cells[5].decode(String?.self), tokenUniqueReference: try cells[6].decode(String?.self),
                device: try cells[7].decode(String?.self), outcome: try cells[8].decode(String?.self), errorCode: try cells[9].decode(String?.self),
                httpStatus: try cells[10].decode(Int?.self), cardLast4Digits: try cells[11].decode(String?.self),
                comment: try cells[12].decode(String?.self), latencyMilliseconds: try cells[13].decode(Int?.self),
                deeplinkHash: try cells[14].decode(String.self)
            ))
        }
    }

    /// Runs `select` through a cursor in one transaction, 10,000 rows at a time.
    func streaming(_ select: PostgresQuery, _ body: (PostgresRow) throws -> Void) throws {
        try transaction { connection in
            var declare = PostgresQuery(unsafeSQL: "DECLARE stream NO SCROLL CURSOR FOR " + select.sql)
            declare.binds = select.binds
            _ = try connection.answer(declare, logger)
            while true {
                let rows = try connection.answer("FETCH 10000 FROM stream", logger)
                if rows.isEmpty { break }
                for row in rows { try body(row) }
            }
        }
    }
}

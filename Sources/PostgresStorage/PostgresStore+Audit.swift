import PostgresNIO
import WalletModel

extension PostgresStore {
    static let auditColumns = """
        seq, attempt_id, event, at, request_id, serial_number, pass_type_identifier, token_unique_reference, device_label,
        deeplink_hash, owner_pid, owner_start, outcome, error_code, http_status, card_last4, comment, latency_ms, previous_hash, hash
        """

    /// Streams every audit row in chain order from one snapshot.
    public func forEachAuditRow(_ body: (StoredAuditRow) throws -> Void) async throws {
        try await streaming("SELECT \(unescaped: Self.auditColumns) FROM audit_row ORDER BY seq") { row in
            try body(try Self.storedRow(row))
        }
    }

    /// Up to `limit` audit rows after the row `seq`, in chain order.
    public func auditPage(after seq: Int64, limit: Int) async throws -> [StoredAuditRow] {
        try await query(Self.auditPage(after: seq, limit: limit)).map(Self.storedRow)
    }

    /// The statement of ``auditPage(after:limit:)``.
    static func auditPage(after seq: Int64, limit: Int) -> PostgresQuery {
        "SELECT \(unescaped: auditColumns) FROM audit_row WHERE seq > \(seq) ORDER BY seq LIMIT \(limit)"
    }

    /// The records and audit rows held.
    public func counts() async throws -> (passes: Int, auditRows: Int) {
        let row = try await query("SELECT (SELECT count(*) FROM pass_record), (SELECT count(*) FROM audit_row)").first
        return try row?.decode((Int, Int).self) ?? (0, 0)
    }

    static func storedRow(_ row: PostgresRow) throws -> StoredAuditRow {
        let cells = row.makeRandomAccess()
        let attemptID = try cells[1].decode(Int64.self)
        let event = try cells[2].decode(String.self)
        let content = try AuditRow.Event(rawValue: event).flatMap { event in
            try Timestamp(iso8601: cells[3].decode(String.self)).map { at in
                AuditRow(
                    attemptID: attemptID, event: event, at: at, requestID: try cells[4].decode(String.self),
                    serialNumber: try cells[5].decode(String.self),
                    passTypeIdentifier: try cells[6].decode(String?.self),
                    tokenUniqueReference: try cells[7].decode(String?.self), device: try cells[8].decode(String?.self),
                    deeplinkHash: try cells[9].decode(String.self), ownerPID: try cells[10].decode(Int32?.self),
                    ownerStart: try cells[11].decode(String?.self), outcome: try cells[12].decode(String?.self),
                    errorCode: try cells[13].decode(String?.self), httpStatus: try cells[14].decode(Int?.self),
                    cardLast4Digits: try cells[15].decode(String?.self), comment: try cells[16].decode(String?.self),
                    latencyMilliseconds: try cells[17].decode(Int?.self)
                )
            }
        }
        return StoredAuditRow(
            seq: try cells[0].decode(Int64.self), attemptID: attemptID, event: event,
            previousHash: try cells[18].decode(String.self), hash: try cells[19].decode(String.self), content: content
        )
    }

    /// Streams the merged entries matching `filter`, oldest first.
    public func forEachAuditEntry(_ filter: AuditFilter, _ body: (AuditEntry) throws -> Void) async throws {
        let (since, until) = (filter.since?.iso8601, filter.until?.iso8601)
        let matching: PostgresQuery = """
            SELECT s.attempt_id, s.request_id, s.at, f.at, s.serial_number, s.pass_type_identifier, s.token_unique_reference,
                   s.device_label, f.outcome, f.error_code, f.http_status, f.card_last4, f.comment, f.latency_ms, s.deeplink_hash
            FROM audit_row s
            LEFT JOIN audit_row f ON f.attempt_id = s.attempt_id AND f.event = 'finished'
            WHERE s.event = 'started'
              AND (\(filter.serialNumber)::text IS NULL OR s.serial_number = \(filter.serialNumber))
              AND (\(filter.outcome)::text IS NULL OR f.outcome = \(filter.outcome))
              AND (\(since)::text IS NULL OR s.at >= \(since))
              AND (\(until)::text IS NULL OR s.at <= \(until))
              AND (\(filter.id)::bigint IS NULL OR s.attempt_id = \(filter.id))
              AND (NOT \(filter.unfinished) OR f.attempt_id IS NULL)
              AND (\(filter.before)::bigint IS NULL OR s.attempt_id < \(filter.before))
            """
        var select = PostgresQuery(unsafeSQL: matching.sql + " ORDER BY s.attempt_id")
        select.binds = matching.binds
        if let newest = filter.newest {
            // From the end of the audit, newest first, then back to oldest first.
            select = PostgresQuery(
                unsafeSQL:
                    "SELECT * FROM (\(matching.sql) ORDER BY s.attempt_id DESC LIMIT $\(matching.binds.count + 1)) e"
                    + " ORDER BY 1")
            select.binds = matching.binds
            try select.binds.append(Int64(max(0, newest)), context: .default)
        }
        try await streaming(select) { row in
            let cells = row.makeRandomAccess()
            try body(
                AuditEntry(
                    id: try cells[0].decode(Int64.self), requestID: try cells[1].decode(String.self),
                    startedAt: Timestamp(iso8601: try cells[2].decode(String.self)) ?? Timestamp(milliseconds: 0),
                    finishedAt: try cells[3].decode(String?.self).flatMap { Timestamp(iso8601: $0) },
                    serialNumber: try cells[4].decode(String.self),
                    passTypeIdentifier: try cells[5].decode(String?.self),
                    tokenUniqueReference: try cells[6].decode(String?.self),
                    device: try cells[7].decode(String?.self), outcome: try cells[8].decode(String?.self),
                    errorCode: try cells[9].decode(String?.self),
                    httpStatus: try cells[10].decode(Int?.self), cardLast4Digits: try cells[11].decode(String?.self),
                    comment: try cells[12].decode(String?.self), latencyMilliseconds: try cells[13].decode(Int?.self),
                    deeplinkHash: try cells[14].decode(String.self)
                ))
        }
    }

    /// Runs `select` through a cursor in one transaction, 10,000 rows at a time.
    func streaming(_ select: PostgresQuery, _ body: (PostgresRow) throws -> Void) async throws {
        try await transaction { connection in
            var declare = PostgresQuery(unsafeSQL: "DECLARE stream NO SCROLL CURSOR FOR " + select.sql)
            declare.binds = select.binds
            _ = try await connection.answer(declare, logger)
            while true {
                let rows = try await connection.answer("FETCH 10000 FROM stream", logger)
                if rows.isEmpty { break }
                for row in rows { try body(row) }
            }
        }
    }
}

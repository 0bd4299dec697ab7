import Foundation
import GRDB
import WalletModel

/// SQL access to the activation audit. Callers provide the transaction; appending
/// inside the caller's transaction keeps the chain consistent across processes.
enum AuditLog {
    static func nextAttemptID(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT ifnull(max(attempt_id), 0) + 1 FROM audit_row")) ?? 1
    }

    static func count(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM audit_row") ?? 0
    }

    /// The hash of the last row, or the genesis hash.
    static func lastHash(_ db: Database) throws -> String {
        try String.fetchOne(db.cachedStatement(sql: "SELECT hash FROM audit_row ORDER BY seq DESC LIMIT 1"))
            ?? AuditRow.genesisHash
    }

    /// Appends a row chained to `previous`, the hash of the last row.
    /// - Returns: the row's hash.
    static func append(_ row: AuditRow, previous: String, _ db: Database) throws -> String {
        // Bound through the C API: this runs twice per activation (measured in a batch).
        let insert = DirectStatement(
            try db.cachedStatement(
                sql: """
                    INSERT INTO audit_row (attempt_id, event, at, request_id, serial_number, pass_type_identifier,
                        token_unique_reference, device_label, deeplink_hash, owner_pid, owner_start, outcome, error_code,
                        http_status, card_last4, comment, latency_ms, previous_hash, hash)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """), db)
        insert.bind(1, Int(row.attemptID))
        insert.bind(2, row.event.rawValue)
        insert.bind(3, row.at.iso8601)
        insert.bind(4, row.requestID)
        insert.bind(5, row.serialNumber)
        insert.bind(6, row.passTypeIdentifier)
        insert.bind(7, row.tokenUniqueReference)
        insert.bind(8, row.device)
        insert.bind(9, row.deeplinkHash)
        insert.bind(10, row.ownerPID.map { Int($0) })
        insert.bind(11, row.ownerStart)
        insert.bind(12, row.outcome)
        insert.bind(13, row.errorCode)
        insert.bind(14, row.httpStatus)
        insert.bind(15, row.cardLast4Digits)
        insert.bind(16, row.comment)
        insert.bind(17, row.latencyMilliseconds)
        let hash = row.hash(previous: previous)
        insert.bind(18, previous)
        insert.bind(19, hash)
        _ = try insert.run()
        return hash
    }

    /// The key of the deeplink hash, random and made with the database.
    static func deeplinkHashKey(_ db: Database) throws -> [UInt8] {
        guard let key = try Data.fetchOne(db, sql: "SELECT value FROM metadata WHERE key = 'deeplink-hash-key'") else {
            throw StorageError(.storageCorrupt, "the database has no deeplink hash key; it was not made by tokenctl")
        }
        return Array(key)
    }

    /// The "started" row of the attempt still open on a pass, if any.
    static func openAttempt(serialNumber: String, tokenUniqueReference: String, _ db: Database) throws -> Row? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT s.attempt_id, s.owner_pid, s.owner_start, s.request_id, s.at, s.pass_type_identifier, s.device_label, s.deeplink_hash
                FROM audit_row s
                WHERE s.event = 'started' AND s.serial_number = ? AND s.token_unique_reference = ?
                  AND NOT EXISTS (SELECT 1 FROM audit_row f WHERE f.attempt_id = s.attempt_id AND f.event = 'finished')
                ORDER BY s.seq DESC LIMIT 1
                """, arguments: [serialNumber, tokenUniqueReference])
    }

    /// Up to `limit` rows after the row `seq`, in chain order.
    static func rows(after seq: Int64, limit: Int, _ db: Database) throws -> [StoredAuditRow] {
        var rows: [StoredAuditRow] = []
        try forEachRow(after: seq, limit: limit, db) { rows.append($0) }
        return rows
    }

    /// Streams the rows in chain order.
    static func forEachRow(
        after seq: Int64 = 0, limit: Int? = nil, _ db: Database, _ body: (StoredAuditRow) throws -> Void
    ) throws {
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT \(storedColumns) FROM audit_row WHERE seq > ? ORDER BY seq"
                + (limit.map { " LIMIT \($0)" } ?? ""), arguments: [seq]
        )
        while let row = try rows.next() {
            try body(stored(row))
        }
    }

    /// The columns ``stored(_:)`` reads, by position (a name is looked up column by column).
    private static let storedColumns = """
        seq, attempt_id, event, at, request_id, serial_number, pass_type_identifier, token_unique_reference, device_label,
        deeplink_hash, owner_pid, owner_start, outcome, error_code, http_status, card_last4, comment, latency_ms, previous_hash, hash
        """

    private static func stored(_ row: Row) -> StoredAuditRow {
        let content = AuditRow.Event(rawValue: row[2]).flatMap { event in
            Timestamp(iso8601: row[3]).map { at in
                AuditRow(
                    attemptID: row[1], event: event, at: at, requestID: row[4],
                    serialNumber: row[5], passTypeIdentifier: row[6],
                    tokenUniqueReference: row[7], device: row[8],
                    deeplinkHash: row[9], ownerPID: row[10], ownerStart: row[11],
                    outcome: row[12], errorCode: row[13], httpStatus: row[14],
                    cardLast4Digits: row[15], comment: row[16], latencyMilliseconds: row[17]
                )
            }
        }
        return StoredAuditRow(
            seq: row[0], attemptID: row[1], event: row[2], previousHash: row[18], hash: row[19], content: content)
    }
}

extension AuditLog {
    /// Streams the merged entries matching `filter`, oldest first.
    static func forEachEntry(
        _ filter: AuditFilter, after: Int64 = 0, limit: Int? = nil, _ db: Database, _ body: (AuditEntry) throws -> Void
    ) throws {
        var sql = """
            SELECT s.attempt_id, s.request_id, s.at AS started_at, f.at AS finished_at, s.serial_number,
                   s.pass_type_identifier, s.token_unique_reference, s.device_label, f.outcome, f.error_code,
                   f.http_status, f.card_last4, f.comment, f.latency_ms, s.deeplink_hash
            FROM audit_row s
            LEFT JOIN audit_row f ON f.attempt_id = s.attempt_id AND f.event = 'finished'
            WHERE s.event = 'started'
            """
        var arguments: StatementArguments = []
        if let serial = filter.serialNumber {
            sql += " AND s.serial_number = ?"
            arguments += [serial]
        }
        if let outcome = filter.outcome {
            sql += " AND f.outcome = ?"
            arguments += [outcome]
        }
        if let since = filter.since {
            sql += " AND s.at >= ?"
            arguments += [since.iso8601]
        }
        if let until = filter.until {
            sql += " AND s.at <= ?"
            arguments += [until.iso8601]
        }
        if let id = filter.id {
            sql += " AND s.attempt_id = ?"
            arguments += [id]
        }
        if filter.unfinished { sql += " AND f.attempt_id IS NULL" }
        if let before = filter.before {
            sql += " AND s.attempt_id < ?"
            arguments += [before]
        }
        if after > 0 {
            sql += " AND s.attempt_id > ?"
            arguments += [after]
        }
        if let newest = filter.newest {
            // From the end of the audit, newest first, then back to oldest first.
            sql = "SELECT * FROM (" + sql + " ORDER BY s.attempt_id DESC LIMIT ?) ORDER BY attempt_id"
            arguments += [max(0, newest)]
        } else {
            sql += " ORDER BY s.attempt_id" + (limit.map { " LIMIT \($0)" } ?? "")
        }
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
            try body(
                AuditEntry(
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

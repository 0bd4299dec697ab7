import Foundation
import GRDB

/// SQL access to the activation audit. Callers provide the transaction; appending
/// inside the caller's transaction keeps the chain consistent across processes.
enum AuditLog {
    static func nextAttemptID(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT ifnull(max(attempt_id), 0) + 1 FROM audit_row")) ?? 1
    }

    /// The hash of the last row, or the genesis hash.
    static func lastHash(_ db: Database) throws -> String {
        try String.fetchOne(db.cachedStatement(sql: "SELECT hash FROM audit_row ORDER BY seq DESC LIMIT 1")) ?? AuditRow.genesisHash
    }

    /// Appends a row chained to `previous`, the hash of the last row.
    /// - Returns: the row's hash.
    static func append(_ row: AuditRow, previous: String, _ db: Database) throws -> String {
        // Bound through the C API: this runs twice per activation (measured in a batch).
        let insert = DirectStatement(try db.cachedStatement(sql: """
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
            throw StorageFailure.missingHashKey
        }
        return Array(key)
    }

    /// The "started" row of the attempt still open on a pass, if any.
    static func openAttempt(serialNumber: String, tokenUniqueReference: String, _ db: Database) throws -> Row? {
        try Row.fetchOne(db, sql: """
            SELECT s.attempt_id, s.owner_pid, s.owner_start, s.request_id, s.at, s.pass_type_identifier, s.device_label, s.deeplink_hash
            FROM audit_row s
            WHERE s.event = 'started' AND s.serial_number = ? AND s.token_unique_reference = ?
              AND NOT EXISTS (SELECT 1 FROM audit_row f WHERE f.attempt_id = s.attempt_id AND f.event = 'finished')
            ORDER BY s.seq DESC LIMIT 1
            """, arguments: [serialNumber, tokenUniqueReference])
    }

    /// Recomputes the chain. Returns the sequence number of the first bad row, or nil.
    static func firstBrokenRow(_ db: Database) throws -> BrokenRow? {
        var chain = ChainCheck()
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM audit_row ORDER BY seq")
        while let row = try rows.next() {
            let content = AuditRow.Event(rawValue: row["event"]).flatMap { event in
                Timestamp(iso8601: row["at"]).map { at in
                    AuditRow(
                        attemptID: row["attempt_id"], event: event, at: at, requestID: row["request_id"],
                        serialNumber: row["serial_number"], passTypeIdentifier: row["pass_type_identifier"],
                        tokenUniqueReference: row["token_unique_reference"], device: row["device_label"],
                        deeplinkHash: row["deeplink_hash"], ownerPID: row["owner_pid"], ownerStart: row["owner_start"],
                        outcome: row["outcome"], errorCode: row["error_code"], httpStatus: row["http_status"],
                        cardLast4Digits: row["card_last4"], comment: row["comment"], latencyMilliseconds: row["latency_ms"]
                    )
                }
            }
            if let broken = chain.check(
                seq: row["seq"], entryID: row["attempt_id"], event: row["event"], previousHash: row["previous_hash"], hash: row["hash"], content: content
            ) {
                return broken
            }
        }
        return nil
    }
}

/// Walks the audit's hash chain row by row, in order, on either database.
struct ChainCheck {
    private var previous = AuditRow.genesisHash

    /// - Parameter content: the row's content, nil when its event or time cannot be read.
    /// - Returns: why this row breaks the chain, or nil.
    mutating func check(seq: Int64, entryID: Int64?, event: String?, previousHash: String, hash: String, content: AuditRow?) -> BrokenRow? {
        func broken(_ reason: String) -> BrokenRow {
            BrokenRow(seq: seq, entryID: entryID, event: event, reason: reason)
        }
        guard previousHash == previous else {
            return broken("its previous-hash link does not match the row before it (a row was removed or reordered)")
        }
        guard let content else {
            return broken("it holds an unreadable event or time")
        }
        guard content.hash(previous: previous) == hash else {
            return broken("its content does not match its hash (the row was changed)")
        }
        previous = hash
        return nil
    }
}

enum StorageFailure: Error {
    case missingHashKey
}

/// Where the audit's hash chain first breaks: the stored row, and the entry it belongs to
/// (the id `audit show` takes) with its event.
public struct BrokenRow: Sendable, Equatable {
    public let seq: Int64
    public let entryID: Int64?
    public let event: String?
    public let reason: String
}

import GRDB
import WalletModel

/// The end of the audit as the database writer left it within the transaction it is
/// writing: the last row's hash and the next attempt id. Nothing else writes the audit
/// while that transaction holds the write lock, so the rows of a group commit need not
/// read them back from the table (a query each, twice a line). Unknown values are read
/// from the table; the writer forgets both when a transaction starts (another process may
/// have appended since its last one) and when a step's savepoint is rolled back.
///
/// Unchecked Sendable: only the writer, on GRDB's writer queue, reads and writes it.
final class AuditTail: @unchecked Sendable {
    fileprivate(set) var lastHash: String?
    fileprivate(set) var nextAttemptID: Int64?

    func forget() {
        lastHash = nil
        nextAttemptID = nil
    }

    /// After `row` was appended with `hash`.
    fileprivate func appended(_ row: AuditRow, hash: String) {
        lastHash = hash
        // As max(attempt_id) + 1 would say: a closed older attempt does not move it back.
        if let next = nextAttemptID, row.attemptID >= next { nextAttemptID = row.attemptID + 1 }
    }
}

extension AuditLog {
    /// The id the next attempt is audited under: one more than the largest so far.
    static func nextAttemptID(_ db: Database, tail: AuditTail) throws -> Int64 {
        if let next = tail.nextAttemptID { return next }
        let next = try nextAttemptID(db)
        tail.nextAttemptID = next
        return next
    }

    /// Appends a row, chained to the last one, and keeps `tail` up to date.
    static func append(_ row: AuditRow, _ db: Database, tail: AuditTail) throws {
        let hash = try append(row, previous: tail.lastHash ?? lastHash(db), db)
        tail.appended(row, hash: hash)
    }
}

import GRDB
import WalletModel

/// Attempts on the SQLite database: every write goes through the ``GroupCommitter`` (one
/// transaction for the steps of all workers that wait at the same moment), and the
/// in-flight guard is the owner's process identity.
struct SQLiteLedger: AttemptLedger {
    let store: Store
    let committer: GroupCommitter

    init(store: Store) {
        self.store = store
        committer = GroupCommitter(store: store)
    }

    func resolve(_ query: PassQuery) async throws -> ResolvedPasses {
        try await store.read { db in try Self.resolve(query, attemptID: 0, db) }
    }

    func begin<T: Sendable>(
        _ query: PassQuery, decide: @escaping @Sendable (ResolvedPasses) -> (T, AttemptWrite?)
    ) async throws -> T {
        // Reading, deciding and writing in one transaction of the committer.
        try await committer.run { db, tail in
            let id = try AuditLog.nextAttemptID(db, tail: tail)
            let (value, step) = decide(try Self.resolve(query, attemptID: id, db))
            if let step { try Self.write(step, db, tail: tail) }
            return value
        }
    }

    func write(_ step: AttemptWrite) async throws {
        try await committer.run { db, tail in try Self.write(step, db, tail: tail) }
    }

    func submit(_ step: AttemptWrite) -> PendingWrite {
        let ticket = committer.submit(held: true) { db, tail in try Self.write(step, db, tail: tail) }
        return PendingWrite { try await ticket.result() }
    }

    var figures: (transactions: Int, jobs: Int) { committer.figures }

    func close() async {
        await committer.close()
    }

    /// The records of `query`, and the open attempt on the target when a record is
    /// `activating`, with whether its owner still runs.
    private static func resolve(_ query: PassQuery, attemptID: Int64, _ db: Database) throws -> ResolvedPasses {
        let records = try WalletRepository.records(matching: query, db)
        var open: OpenAttempt?
        if let activating = records.first(where: { $0.state == .activating }),
            let row = try AuditLog.openAttempt(
                serialNumber: activating.serialNumber, tokenUniqueReference: activating.deviceAccountIdentifier, db)
        {
            open = OpenAttempt(
                attemptID: row["attempt_id"], requestID: row["request_id"], deeplinkHash: row["deeplink_hash"],
                ownerIsAlive: ProcessIdentity(pid: row["owner_pid"] ?? 0, start: row["owner_start"] ?? "").isAlive
            )
        }
        return ResolvedPasses(records: records, openAttempt: open, attemptID: attemptID)
    }

    /// Appends the step's rows, then moves its pass, inside the caller's transaction.
    private static func write(_ step: AttemptWrite, _ db: Database, tail: AuditTail) throws {
        for row in step.rows {
            try AuditLog.append(row, db, tail: tail)
        }
        if let move = step.move {
            try WalletRepository.setState(move.to, of: move.record, db)
        }
    }
}

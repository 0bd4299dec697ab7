import Storage

/// Attempts on the SQLite database: every write goes through the ``GroupCommitter`` (one
/// transaction for the steps of all workers that wait at the same moment), and the
/// in-flight guard is the owner's process identity.
struct SQLiteLedger: AttemptLedger {
    let store: Store
    let committer: GroupCommitter

    init(store: Store, sharing: Bool) {
        self.store = store
        committer = GroupCommitter(store: store, sharing: sharing)
    }

    func deeplinkHashKey() throws -> [UInt8] {
        try store.read { try AuditLog.deeplinkHashKey($0) }
    }

    func resolve(_ query: PassQuery, attempt: Attempt) throws -> ActivationMachine.Event {
        try store.read { db in try attempt.resolve(query, attemptID: 0, db) }
    }

    func begin<T>(
        _ query: PassQuery, attempt: Attempt,
        decide: @escaping (ActivationMachine.Event) -> (T, ActivationMachine.Action)
    ) throws -> (T, ActivationMachine.Action, attemptID: Int64) {
        // Reading, deciding and writing in one transaction of the committer.
        try committer.run { db, tail in
            let id = try AuditLog.nextAttemptID(db, tail: tail)
            let (value, action) = decide(try attempt.resolve(query, attemptID: id, db))
            try attempt.write(action, attemptID: id, latency: nil, db, tail: tail)
            return (value, action, id)
        }
    }

    func write(_ action: ActivationMachine.Action, attemptID: Int64, latency: Duration?, attempt: Attempt) throws {
        try committer.run { db, tail in try attempt.write(action, attemptID: attemptID, latency: latency, db, tail: tail) }
    }

    func submit(_ action: ActivationMachine.Action, attemptID: Int64, latency: Duration?, attempt: Attempt) -> PendingWrite {
        let ticket = committer.submit { db, tail in try attempt.write(action, attemptID: attemptID, latency: latency, db, tail: tail) }
        return PendingWrite { try ticket.result() }
    }

    var figures: (transactions: Int, jobs: Int) { committer.figures }

    func close() {
        committer.close()
    }
}

import ErrorCodes
import WalletModel

/// Attempts on PostgreSQL, shared by many hosts. Reads and writes go through one
/// ``PostgresGroupWriter`` as calls of the server's `tokenctl_step`: a read brings the
/// records, their leases and a new attempt id; a write checks what the decision was based on
/// (the pass state, the lease it closes), applies it and chains its audit rows under one
/// lock, committed before it is answered. When another host got there first, the attempt
/// reads again and decides again. A batch's workers share the writer: the reads and writes
/// waiting at once go in one call, one round trip.
///
/// The in-flight guard is a lease (host, process, expiry): a host that died is known when
/// its lease expires, and the next attempt on the pass closes its attempt as UNKNOWN
/// `activation.interrupted`. On this host, a dead owner process is known at once.
struct PostgresLedger: AttemptLedger {
    let store: PostgresStore
    private let writer: PostgresGroupWriter

    init(store: PostgresStore, sharing: Bool) {
        self.store = store
        writer = PostgresGroupWriter(store: store, sharing: sharing)
    }

    func resolve(_ query: PassQuery) throws -> ResolvedPasses {
        try read(query).passes
    }

    func begin<T>(_ query: PassQuery, decide: @escaping (ResolvedPasses) -> (T, AttemptWrite?)) throws -> T {
        var tries = 0
        while true {
            let resolved = try read(query)
            let (value, step) = decide(resolved.passes)
            guard let step else { return value }
            if try writer.apply(change(step, leased: resolved.leased)) != .conflict { return value }
            tries += 1
            if tries == 20 {
                throw StorageError(.storageBusy, "the pass changed under this attempt 20 times in a row (other hosts activating it); nothing was sent, try again")
            }
        }
    }

    func write(_ step: AttemptWrite) throws {
        try Self.check(try writer.apply(change(step, leased: [])), attemptID: step.attemptID)
    }

    func submit(_ step: AttemptWrite) -> PendingWrite {
        let pending = writer.submit(change(step, leased: []))
        return PendingWrite { try Self.check(try pending(), attemptID: step.attemptID) }
    }

    var figures: (transactions: Int, jobs: Int) { writer.figures }

    func close() {
        writer.close()
    }

    /// A finish whose lease is gone: the lease expired and another host closed the attempt
    /// as UNKNOWN before this answer could be written.
    private static func check(_ status: AttemptChangeStatus, attemptID: Int64) throws {
        guard status == .conflict else { return }
        throw LeaseExpired(attemptID: attemptID)
    }

    private struct LeaseExpired: CodedError {
        let attemptID: Int64
        var code: ErrorCode { .activationInterrupted }
        var message: String {
            "audit \(attemptID)'s lease expired before its answer was written; another host closed it as UNKNOWN (database.lease-ms is too short for the TMP timeouts)"
        }
    }

    // MARK: Reading

    private struct Resolved {
        let passes: ResolvedPasses
        /// Attempt ids that hold a lease (an open attempt without one came from a copied database).
        let leased: Set<Int64>
    }

    private func read(_ query: PassQuery) throws -> Resolved {
        let resolution = try writer.read(query)
        var open: OpenAttempt?
        var leased: Set<Int64> = []
        if let activating = resolution.passes.first(where: { $0.pass.state == .activating }) {
            if let lease = activating.lease {
                leased.insert(lease.attemptID)
                open = OpenAttempt(
                    attemptID: lease.attemptID, requestID: lease.requestID, deeplinkHash: lease.deeplinkHash,
                    ownerIsAlive: lease.isLive && !(lease.hostID == store.options.hostID && !ProcessIdentity(pid: lease.pid, start: lease.processStart).isAlive)
                )
            } else if let row = try store.openAttemptWithoutLease(serialNumber: activating.pass.serialNumber, tokenUniqueReference: activating.pass.deviceAccountIdentifier) {
                open = OpenAttempt(attemptID: row.attemptID, requestID: row.requestID, deeplinkHash: row.deeplinkHash, ownerIsAlive: false)
            }
        }
        let passes = ResolvedPasses(records: resolution.passes.map(\.pass), openAttempt: open, attemptID: resolution.attemptID)
        return Resolved(passes: passes, leased: leased)
    }

    // MARK: Writing

    /// What `step` changes, as the server's `tokenctl_step` takes it.
    private func change(_ step: AttemptWrite, leased: Set<Int64>) -> AttemptChange {
        var change = AttemptChange(rows: step.rows.map(AuditRowValues.init))
        if let closing = step.closing, leased.contains(closing) { change.dropLeases = [closing] }
        switch step.kind {
        case .started:
            guard let move = step.move, let started = step.rows.last else { break }
            let record = move.record
            change.state = self.move(record, from: record.state, to: move.to)
            let owner = ProcessIdentity.current
            change.lease = AttemptChange.Lease(
                serial: record.serialNumber, token: record.deviceAccountIdentifier, attempt: step.attemptID, request: started.requestID,
                deeplink: started.deeplinkHash, host: store.options.hostID, pid: owner.pid, processStart: owner.start,
                milliseconds: store.options.leaseMilliseconds
            )
        case .stopped:
            break
        case .finished:
            if let move = step.move { change.state = self.move(move.record, from: .activating, to: move.to) }
            change.dropLeases = [step.attemptID]
        }
        return change
    }

    private func move(_ record: PassRecord, from: PassState, to state: PassState) -> AttemptChange.StateMove {
        AttemptChange.StateMove(
            serial: record.serialNumber, passType: record.passTypeIdentifier, token: record.deviceAccountIdentifier,
            from: from.rawValue, to: state.rawValue
        )
    }
}

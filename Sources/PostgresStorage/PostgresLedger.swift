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

    init(store: PostgresStore) {
        self.store = store
        writer = PostgresGroupWriter(store: store, retryMilliseconds: store.options.reconnectWindowMilliseconds)
    }

    func resolve(_ query: PassQuery) async throws -> ResolvedPasses {
        try await read(query).passes
    }

    func begin<T: Sendable>(
        _ query: PassQuery, decide: @escaping @Sendable (ResolvedPasses) -> (T, AttemptWrite?)
    ) async throws -> T {
        var tries = 0
        while true {
            let resolved = try await read(query)
            let (value, step) = decide(resolved.passes)
            guard let step else { return value }
            if try await writer.apply(change(step, leased: resolved.leased)) != .conflict { return value }
            tries += 1
            if tries == 20 {
                throw StorageError(
                    .storageBusy,
                    "the pass changed under this attempt 20 times in a row (other hosts activating it); nothing was sent, try again"
                )
            }
        }
    }

    func write(_ step: AttemptWrite) async throws {
        try Self.check(try await writer.apply(change(step, leased: [:])), attemptID: step.attemptID)
    }

    func submit(_ step: AttemptWrite) -> PendingWrite {
        let pending = writer.submit(change(step, leased: [:]), held: true)
        return PendingWrite { try Self.check(try await pending(), attemptID: step.attemptID) }
    }

    var figures: (transactions: Int, jobs: Int) { writer.figures }

    func close() async {
        await writer.close()
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
        /// Attempt ids that hold a lease, with the pass that holds each (an open attempt
        /// without one came from a copied database).
        let leased: [Int64: PassRecord]
    }

    private func read(_ query: PassQuery) async throws -> Resolved {
        let resolution = try await writer.read(query)
        var open: OpenAttempt?
        var leased: [Int64: PassRecord] = [:]
        if let activating = resolution.passes.first(where: { $0.pass.state == .activating }) {
            if let lease = activating.lease {
                leased[lease.attemptID] = activating.pass
                open = OpenAttempt(
                    attemptID: lease.attemptID, requestID: lease.requestID, deeplinkHash: lease.deeplinkHash,
                    ownerIsAlive: lease.isLive
                        && !(lease.hostID == store.options.hostID
                            && !ProcessIdentity(pid: lease.pid, start: lease.processStart).isAlive)
                )
            } else if let row = try await store.openAttemptWithoutLease(
                serialNumber: activating.pass.serialNumber,
                tokenUniqueReference: activating.pass.deviceAccountIdentifier)
            {
                open = OpenAttempt(
                    attemptID: row.attemptID, requestID: row.requestID, deeplinkHash: row.deeplinkHash,
                    ownerIsAlive: false)
            }
        }
        let passes = ResolvedPasses(
            records: resolution.passes.map(\.pass), openAttempt: open, attemptID: resolution.attemptID)
        return Resolved(passes: passes, leased: leased)
    }

    // MARK: Writing

    /// What `step` changes, as the server's `tokenctl_step` takes it. `leased`: the attempts
    /// holding a lease when the step was decided, with the pass that holds each.
    private func change(_ step: AttemptWrite, leased: [Int64: PassRecord]) -> AttemptChange {
        var change = AttemptChange(rows: step.rows.map(AuditRowValues.init))
        let closing = step.closing.flatMap { id in leased[id].map { (id, $0) } }
        switch step.kind {
        case .started:
            guard let move = step.move, let started = step.rows.last else { break }
            let owner = ProcessIdentity.current
            let lease = AttemptChange.Lease(
                attempt: step.attemptID, request: started.requestID, deeplink: started.deeplinkHash,
                host: store.options.hostID,
                pid: owner.pid, processStart: owner.start, milliseconds: store.options.leaseMilliseconds
            )
            change.pass = self.move(move.record, from: move.record.state, to: move.to, holder: closing?.0, lease: lease)
        case .stopped:
            // An attempt left by a dead host is closed: its lease goes, the pass stays activating.
            if let (id, record) = closing {
                change.pass = self.move(record, from: .activating, to: .activating, holder: id, lease: nil)
            }
        case .finished:
            if let move = step.move {
                change.pass = self.move(move.record, from: .activating, to: move.to, holder: step.attemptID, lease: nil)
            }
        }
        return change
    }

    private func move(
        _ record: PassRecord, from: PassState, to state: PassState, holder: Int64?, lease: AttemptChange.Lease?
    ) -> AttemptChange.PassMove {
        AttemptChange.PassMove(
            serial: record.serialNumber, passType: record.passTypeIdentifier, token: record.deviceAccountIdentifier,
            from: from.rawValue, to: state.rawValue, holder: holder, lease: lease
        )
    }
}

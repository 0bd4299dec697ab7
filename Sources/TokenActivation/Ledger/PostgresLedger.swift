import ErrorCodes
import PostgresStorage
import Storage

/// Attempts on PostgreSQL, shared by many hosts. Reading is one round trip (the records,
/// their leases and a new attempt id); each write is one call of the server's
/// `tokenctl_apply`, which checks what the decision was based on (the pass state, the lease
/// it closes), applies it and chains its audit rows under one lock. When another host got
/// there first, the attempt reads again and decides again. A batch's workers write through
/// one ``PostgresGroupWriter``: one call, one chain lock for all the steps waiting at once.
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

    func deeplinkHashKey() throws -> [UInt8] {
        try store.deeplinkHashKey()
    }

    func resolve(_ query: PassQuery, attempt: Attempt) throws -> ActivationMachine.Event {
        try read(query).event
    }

    func begin<T>(
        _ query: PassQuery, attempt: Attempt,
        decide: @escaping (ActivationMachine.Event) -> (T, ActivationMachine.Action)
    ) throws -> (T, ActivationMachine.Action, attemptID: Int64) {
        var tries = 0
        while true {
            let resolved = try read(query)
            let (value, action) = decide(resolved.event)
            let change = self.change(action, attemptID: resolved.attemptID, latency: nil, attempt: attempt, leased: resolved.leased)
            if try writer.apply(change) != .conflict { return (value, action, resolved.attemptID) }
            tries += 1
            if tries == 20 {
                throw StorageError(.storageBusy, "the pass changed under this attempt 20 times in a row (other hosts activating it); nothing was sent, try again")
            }
        }
    }

    func write(_ action: ActivationMachine.Action, attemptID: Int64, latency: Duration?, attempt: Attempt) throws {
        let status = try writer.apply(change(action, attemptID: attemptID, latency: latency, attempt: attempt, leased: []))
        try Self.check(status, attemptID: attemptID)
    }

    func submit(_ action: ActivationMachine.Action, attemptID: Int64, latency: Duration?, attempt: Attempt) -> PendingWrite {
        let pending = writer.submit(change(action, attemptID: attemptID, latency: latency, attempt: attempt, leased: []))
        return PendingWrite { try Self.check(try pending(), attemptID: attemptID) }
    }

    var figures: (transactions: Int, jobs: Int) { writer.figures }

    func close() {
        writer.close()
    }

    /// A finish whose lease is gone: the lease expired and another host closed the attempt
    /// as UNKNOWN before this answer could be written.
    private static func check(_ status: AttemptChangeStatus, attemptID: Int64) throws {
        guard status == .conflict else { return }
        throw ActivationError(
            code: .activationInterrupted,
            message: "audit \(attemptID)'s lease expired before its answer was written; another host closed it as UNKNOWN (database.lease-ms is too short for the TMP timeouts)"
        )
    }

    // MARK: Reading

    private struct Resolved {
        let event: ActivationMachine.Event
        let attemptID: Int64
        /// Attempt ids that hold a lease (an open attempt without one came from a copied database).
        let leased: Set<Int64>
    }

    private func read(_ query: PassQuery) throws -> Resolved {
        let resolution = try store.resolveAttempt(serialNumber: query.serialNumber, passTypeIdentifier: query.passTypeIdentifier, device: query.device)
        let records = resolution.passes.map { PassRecord(row: $0.pass) }
        var open: ActivationMachine.OpenAttempt?
        var leased: Set<Int64> = []
        if let activating = resolution.passes.first(where: { $0.pass.state == PassState.activating.rawValue }) {
            if let lease = activating.lease {
                leased.insert(lease.attemptID)
                open = ActivationMachine.OpenAttempt(
                    attemptID: lease.attemptID, requestID: lease.requestID, deeplinkHash: lease.deeplinkHash,
                    ownerIsAlive: lease.isLive && !(lease.hostID == store.options.hostID && !ProcessIdentity(pid: lease.pid, start: lease.processStart).isAlive)
                )
            } else if let row = try store.openAttemptWithoutLease(serialNumber: activating.pass.serialNumber, tokenUniqueReference: activating.pass.deviceAccountIdentifier) {
                open = ActivationMachine.OpenAttempt(attemptID: row.attemptID, requestID: row.requestID, deeplinkHash: row.deeplinkHash, ownerIsAlive: false)
            }
        }
        return Resolved(event: .recordsResolved(records, openAttempt: open, attemptID: resolution.attemptID), attemptID: resolution.attemptID, leased: leased)
    }

    // MARK: Writing

    /// What `action` changes, as the server's `tokenctl_apply` takes it.
    private func change(_ action: ActivationMachine.Action, attemptID: Int64, latency: Duration?, attempt: Attempt, leased: Set<Int64>) -> AttemptChange {
        var change = AttemptChange(rows: attempt.rows(of: action, attemptID: attemptID, latency: latency).map(\.values))
        switch action {
        case .writeStarted(let start):
            let record = start.record
            change.states = [move(record, to: .activating)]
            if let closing = start.closing, leased.contains(closing.attemptID) { change.dropLeases = [closing.attemptID] }
            let owner = ProcessIdentity.current
            change.lease = AttemptChange.Lease(
                serial: record.serialNumber, token: record.deviceAccountIdentifier, attempt: attemptID, request: attempt.requestID,
                deeplink: attempt.deeplinkHash, host: store.options.hostID, pid: owner.pid, processStart: owner.start,
                milliseconds: store.options.leaseMilliseconds
            )
        case .writeStopped(let stop):
            if let closing = stop.closing, leased.contains(closing.attemptID) { change.dropLeases = [closing.attemptID] }
        case .writeFinished(let finish):
            var record = finish.record
            record.state = .activating
            change.states = [move(record, to: finish.passState)]
            change.dropLeases = [attemptID]
            change.once = attemptID
        case .checkUser, .resolveRecords, .send, .stop:
            break
        }
        return change
    }

    private func move(_ record: PassRecord, to state: PassState) -> AttemptChange.StateMove {
        AttemptChange.StateMove(
            serial: record.serialNumber, passType: record.passTypeIdentifier, token: record.deviceAccountIdentifier,
            from: record.state.rawValue, to: state.rawValue
        )
    }
}

extension PassRecord {
    init(row: PassRow) {
        self.init(
            passTypeIdentifier: row.passTypeIdentifier, serialNumber: row.serialNumber, deviceAccountIdentifier: row.deviceAccountIdentifier,
            state: PassState(rawValue: row.state) ?? .requiresActivation, device: row.device, cardSuffix: row.cardSuffix
        )
    }

    var row: PassRow {
        PassRow(
            passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber, deviceAccountIdentifier: deviceAccountIdentifier,
            state: state.rawValue, device: device, cardSuffix: cardSuffix
        )
    }
}

extension AuditRow {
    /// The row as PostgreSQL's `tokenctl_apply` takes it: the columns, and the hashed text
    /// after the previous hash, which the server fills in under the chain lock.
    var values: AuditRowValues {
        let text = hashedText(previous: "")
        let rest = text[Self.previousPrefixLength...]
        return AuditRowValues(
            attempt: attemptID, event: event.rawValue, at: at.iso8601, request: requestID, serial: serialNumber,
            passType: passTypeIdentifier, token: tokenUniqueReference, device: device, deeplink: deeplinkHash, pid: ownerPID,
            ownerStart: ownerStart, outcome: outcome, error: errorCode, http: httpStatus, last4: cardLast4Digits, comment: comment,
            latency: latencyMilliseconds, rest: String(decoding: rest, as: UTF8.self)
        )
    }

    /// `{"previous": ""`: the hashed text before an empty previous hash's closing quote.
    static let previousPrefixLength = "{\"previous\": \"\"".utf8.count
}

extension AuditRow {
    /// A row read back from PostgreSQL; nil when its event or time cannot be read.
    init?(stored values: AuditRowValues) {
        guard let event = Event(rawValue: values.event), let at = Timestamp(iso8601: values.at) else { return nil }
        self.init(
            attemptID: values.attempt, event: event, at: at, requestID: values.request, serialNumber: values.serial,
            passTypeIdentifier: values.passType, tokenUniqueReference: values.token, device: values.device, deeplinkHash: values.deeplink,
            ownerPID: values.pid, ownerStart: values.ownerStart, outcome: values.outcome, errorCode: values.error, httpStatus: values.http,
            cardLast4Digits: values.last4, comment: values.comment, latencyMilliseconds: values.latency
        )
    }
}

extension AuditEntry {
    init(stored entry: StoredAuditEntry) {
        self.init(
            id: entry.attemptID, requestID: entry.requestID, startedAt: Timestamp(iso8601: entry.startedAt) ?? Timestamp(milliseconds: 0),
            finishedAt: entry.finishedAt.flatMap { Timestamp(iso8601: $0) }, serialNumber: entry.serialNumber,
            passTypeIdentifier: entry.passTypeIdentifier, tokenUniqueReference: entry.tokenUniqueReference, device: entry.device,
            outcome: entry.outcome, errorCode: entry.errorCode, httpStatus: entry.httpStatus, cardLast4Digits: entry.cardLast4Digits,
            comment: entry.comment, latencyMilliseconds: entry.latencyMilliseconds, deeplinkHash: entry.deeplinkHash
        )
    }
}

import ErrorCodes
import GRDB

/// The database side of one activation attempt: it reads what the
/// ``ActivationMachine`` asks about and writes the rows its actions name. It decides
/// nothing.
struct Attempt: Sendable {
    /// The keyed hash of the deeplink text; the text itself is never stored.
    let deeplinkHash: String
    let serialNumber: String
    let passTypeIdentifier: String?
    let device: String?
    let requestID: String
    let clock: @Sendable () -> Timestamp

    /// The records of `query`, and the open attempt on the target when a record is
    /// `activating`, with whether its owner still runs; `attemptID` is the id the attempt
    /// is audited under.
    func resolve(_ query: PassQuery, attemptID: Int64, _ db: Database) throws -> ActivationMachine.Event {
        let records = try WalletRepository.records(matching: query, db)
        var open: ActivationMachine.OpenAttempt?
        if let activating = records.first(where: { $0.state == .activating }),
           let row = try AuditLog.openAttempt(serialNumber: activating.serialNumber, tokenUniqueReference: activating.deviceAccountIdentifier, db) {
            open = ActivationMachine.OpenAttempt(
                attemptID: row["attempt_id"], requestID: row["request_id"], deeplinkHash: row["deeplink_hash"],
                ownerIsAlive: ProcessIdentity(pid: row["owner_pid"] ?? 0, start: row["owner_start"] ?? "").isAlive
            )
        }
        return .recordsResolved(records, openAttempt: open, attemptID: attemptID)
    }

    /// Performs a write action of the machine inside the caller's transaction.
    func write(_ action: ActivationMachine.Action, attemptID: Int64, latency: Duration?, _ db: Database, tail: AuditTail) throws {
        for row in rows(of: action, attemptID: attemptID, latency: latency) {
            try AuditLog.append(row, db, tail: tail)
        }
        if let (record, state) = stateChange(of: action) {
            try WalletRepository.setState(state, of: record, db)
        }
    }

    /// The audit rows a write action appends, in order.
    func rows(of action: ActivationMachine.Action, attemptID: Int64, latency: Duration?) -> [AuditRow] {
        switch action {
        case .writeStarted(let start):
            // Built in order: each row's time is read from the clock as it is made.
            let closing = start.closing.map { [interrupted($0, record: start.record)] } ?? []
            var started = row(.started, attemptID: attemptID, record: start.record)
            let owner = ProcessIdentity.current
            started.ownerPID = owner.pid
            started.ownerStart = owner.start
            return closing + [started]
        case .writeStopped(let stop):
            var closing: [AuditRow] = []
            if let open = stop.closing, let record = stop.record { closing = [interrupted(open, record: record)] }
            let started = row(.started, attemptID: attemptID, record: stop.record)
            var finished = row(.finished, attemptID: attemptID, record: stop.record)
            finished.outcome = stop.outcome.rawValue
            finished.errorCode = stop.error?.code.rawValue
            return closing + [started, finished]
        case .writeFinished(let finish):
            var finished = row(.finished, attemptID: attemptID, record: finish.record)
            finished.outcome = finish.answer.outcome.rawValue
            finished.errorCode = finish.answer.error?.code.rawValue
            finished.httpStatus = finish.answer.httpStatus
            finished.cardLast4Digits = finish.answer.cardLast4Digits
            finished.comment = finish.answer.comment
            finished.latencyMilliseconds = latency.map { Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) }
            return [finished]
        case .checkUser, .resolveRecords, .send, .stop:
            return []
        }
    }

    /// The pass state a write action sets, after its rows.
    func stateChange(of action: ActivationMachine.Action) -> (PassRecord, PassState)? {
        switch action {
        case .writeStarted(let start): (start.record, .activating)
        case .writeFinished(let finish): (finish.record, finish.passState)
        case .writeStopped, .checkUser, .resolveRecords, .send, .stop: nil
        }
    }

    /// The "finished" row that closes the attempt of a process (or host) that died
    /// mid-request as UNKNOWN.
    private func interrupted(_ open: ActivationMachine.OpenAttempt, record: PassRecord) -> AuditRow {
        AuditRow(
            attemptID: open.attemptID, event: .finished, at: clock(), requestID: open.requestID,
            serialNumber: record.serialNumber, passTypeIdentifier: record.passTypeIdentifier,
            tokenUniqueReference: record.deviceAccountIdentifier, device: record.device,
            deeplinkHash: open.deeplinkHash, outcome: Outcome.unknown.rawValue, errorCode: ErrorCode.activationInterrupted.rawValue
        )
    }

    private func row(_ event: AuditRow.Event, attemptID: Int64, record: PassRecord?) -> AuditRow {
        AuditRow(
            attemptID: attemptID, event: event, at: clock(), requestID: requestID,
            serialNumber: serialNumber, passTypeIdentifier: record?.passTypeIdentifier ?? passTypeIdentifier,
            tokenUniqueReference: record?.deviceAccountIdentifier, device: record?.device ?? device, deeplinkHash: deeplinkHash
        )
    }
}

extension ActivationResult {
    mutating func apply(_ answer: TMPAnswer) {
        outcome = answer.outcome
        error = answer.error
        httpStatus = answer.httpStatus
        cardLast4Digits = answer.cardLast4Digits
        comment = answer.comment
    }
}

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
        switch action {
        case .writeStarted(let start):
            if let closing = start.closing { try closeInterrupted(closing, record: start.record, db, tail: tail) }
            var started = row(.started, attemptID: attemptID, record: start.record)
            let owner = ProcessIdentity.current
            started.ownerPID = owner.pid
            started.ownerStart = owner.start
            try AuditLog.append(started, db, tail: tail)
            try WalletRepository.setState(.activating, of: start.record, db)
        case .writeStopped(let stop):
            if let closing = stop.closing, let record = stop.record { try closeInterrupted(closing, record: record, db, tail: tail) }
            try AuditLog.append(row(.started, attemptID: attemptID, record: stop.record), db, tail: tail)
            var finished = row(.finished, attemptID: attemptID, record: stop.record)
            finished.outcome = stop.outcome.rawValue
            finished.errorCode = stop.error?.code.rawValue
            try AuditLog.append(finished, db, tail: tail)
        case .writeFinished(let finish):
            var finished = row(.finished, attemptID: attemptID, record: finish.record)
            finished.outcome = finish.answer.outcome.rawValue
            finished.errorCode = finish.answer.error?.code.rawValue
            finished.httpStatus = finish.answer.httpStatus
            finished.cardLast4Digits = finish.answer.cardLast4Digits
            finished.comment = finish.answer.comment
            finished.latencyMilliseconds = latency.map { Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) }
            try AuditLog.append(finished, db, tail: tail)
            try WalletRepository.setState(finish.passState, of: finish.record, db)
        case .checkUser, .resolveRecords, .send, .stop:
            break
        }
    }

    /// Closes the attempt of a process that died mid-request as UNKNOWN.
    private func closeInterrupted(_ open: ActivationMachine.OpenAttempt, record: PassRecord, _ db: Database, tail: AuditTail) throws {
        try AuditLog.append(AuditRow(
            attemptID: open.attemptID, event: .finished, at: clock(), requestID: open.requestID,
            serialNumber: record.serialNumber, passTypeIdentifier: record.passTypeIdentifier,
            tokenUniqueReference: record.deviceAccountIdentifier, device: record.device,
            deeplinkHash: open.deeplinkHash, outcome: Outcome.unknown.rawValue, errorCode: ErrorCode.activationInterrupted.rawValue
        ), db, tail: tail)
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

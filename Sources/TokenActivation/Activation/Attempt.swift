import ErrorCodes
import WalletModel

/// What one activation attempt writes: the audit rows and pass states the
/// ``ActivationMachine``'s write actions name, for the store's ``AttemptLedger``. It decides
/// nothing.
struct Attempt: Sendable {
    /// The keyed hash of the deeplink text; the text itself is never stored.
    let deeplinkHash: String
    let serialNumber: String
    let passTypeIdentifier: String?
    let device: String?
    let requestID: String
    let clock: @Sendable () -> Timestamp

    /// What a write action of the machine writes: its audit rows, then its pass's state;
    /// nil for an action that writes nothing.
    func step(_ action: ActivationMachine.Action, attemptID: Int64, latency: Duration?) -> AttemptWrite? {
        let kind: AttemptWrite.Kind
        let move: AttemptWrite.StateMove?
        let closing: Int64?
        switch action {
        case .writeStarted(let start):
            (kind, move, closing) = (.started, .init(start.record, to: .activating), start.closing?.attemptID)
        case .writeStopped(let stop): (kind, move, closing) = (.stopped, nil, stop.closing?.attemptID)
        case .writeFinished(let finish):
            (kind, move, closing) = (.finished, .init(finish.record, to: finish.passState), nil)
        case .checkUser, .resolveRecords, .send, .stop: return nil
        }
        return AttemptWrite(
            kind: kind, attemptID: attemptID, rows: rows(of: action, attemptID: attemptID, latency: latency),
            move: move, closing: closing)
    }

    /// The audit rows a write action appends, in order.
    private func rows(of action: ActivationMachine.Action, attemptID: Int64, latency: Duration?) -> [AuditRow] {
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
            finished.latencyMilliseconds = latency.map {
                Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000)
            }
            return [finished]
        case .checkUser, .resolveRecords, .send, .stop:
            return []
        }
    }

    /// The "finished" row that closes the attempt of a process (or host) that died
    /// mid-request as UNKNOWN.
    private func interrupted(_ open: ActivationMachine.OpenAttempt, record: PassRecord) -> AuditRow {
        Self.interrupted(open, record: record, at: clock())
    }

    /// The "finished" row of an attempt whose owner died, as UNKNOWN `activation.interrupted`.
    static func interrupted(_ open: OpenAttempt, record: PassRecord, at time: Timestamp) -> AuditRow {
        AuditRow(
            attemptID: open.attemptID, event: .finished, at: time, requestID: open.requestID,
            serialNumber: record.serialNumber, passTypeIdentifier: record.passTypeIdentifier,
            tokenUniqueReference: record.deviceAccountIdentifier, device: record.device,
            deeplinkHash: open.deeplinkHash, outcome: Outcome.unknown.rawValue,
            errorCode: ErrorCode.activationInterrupted.rawValue
        )
    }

    private func row(_ event: AuditRow.Event, attemptID: Int64, record: PassRecord?) -> AuditRow {
        AuditRow(
            attemptID: attemptID, event: event, at: clock(), requestID: requestID,
            serialNumber: serialNumber, passTypeIdentifier: record?.passTypeIdentifier ?? passTypeIdentifier,
            tokenUniqueReference: record?.deviceAccountIdentifier, device: record?.device ?? device,
            deeplinkHash: deeplinkHash
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

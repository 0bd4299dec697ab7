import GRDB

/// The database side of one activation attempt: the decisions taken inside the write
/// transactions that surround the request.
struct Attempt: Sendable {
    enum Start: Sendable {
        /// Nothing will be sent; the attempt is already audited (started and finished).
        case stopped(ActivationResult)
        /// The "started" row is committed and the pass is `activating`: send now.
        case sending(PassRecord, TMPClient, ActivationResult)
    }

    let deeplink: Deeplink
    /// The keyed hash of the deeplink text; the text itself is never stored.
    let deeplinkHash: String
    let device: String?
    let requestID: String
    let clock: @Sendable () -> Timestamp

    var query: PassQuery {
        PassQuery(serialNumber: deeplink.serialNumber, passTypeIdentifier: deeplink.passTypeIdentifier, device: device)
    }

    /// Decides, in one IMMEDIATE transaction, whether to send. Deciding and marking the
    /// pass `activating` together is what lets only one of many concurrent processes send.
    func start(prepared: Result<TMPClient, ActivationError>, _ db: Database) throws -> Start {
        var result = ActivationResult(outcome: .error)
        result.serialNumber = deeplink.serialNumber
        result.requestID = requestID
        let attemptID = try AuditLog.nextAttemptID(db)
        result.auditID = attemptID
        let hash = deeplinkHash

        let resolution = PassResolution(records: try WalletRepository.records(matching: query, db), query: query)
        var record: PassRecord?
        switch resolution {
        case .refused(let error):
            result.error = error
        case .alreadyActivated(let activated):
            record = activated
            result.outcome = .alreadyActivated
        case .target(let target):
            record = target
            if target.state == .activating {
                if let open = try AuditLog.openAttempt(serialNumber: target.serialNumber, tokenUniqueReference: target.deviceAccountIdentifier, db),
                   ProcessIdentity(pid: open["owner_pid"] ?? 0, start: open["owner_start"] ?? "").isAlive {
                    result.error = ActivationError(code: "activation.inProgress", message: "an activation of this pass is already in progress (audit \(open["attempt_id"] as Int64? ?? 0)); nothing was sent")
                } else {
                    result.warnings.append(try closeInterrupted(target, db))
                }
            }
            if result.error == nil, case .failure(let error) = prepared {
                result.error = error
            }
        }
        result.tokenUniqueReference = record?.deviceAccountIdentifier
        var started = row(.started, attemptID: attemptID, hash: hash, record: record)
        if result.error == nil, result.outcome != .alreadyActivated, let record, case .success(let client) = prepared {
            let owner = ProcessIdentity.current
            started.ownerPID = owner.pid
            started.ownerStart = owner.start
            try AuditLog.append(started, db)
            try WalletRepository.setState(.activating, of: record, db)
            return .sending(record, client, result)
        }
        // Stopped before sending: the attempt is audited whole, now.
        try AuditLog.append(started, db)
        var finished = row(.finished, attemptID: attemptID, hash: hash, record: record)
        finished.outcome = result.outcome.rawValue
        finished.errorCode = result.error?.code
        try AuditLog.append(finished, db)
        return .stopped(result)
    }

    /// Records the answer and moves the pass: `activated` on APPROVED, otherwise back to
    /// `requiresActivation` so that a new run is an explicit retry.
    func finish(_ record: PassRecord, result: ActivationResult, latency: Duration, _ db: Database) throws -> ActivationResult {
        let hash = deeplinkHash
        var finished = row(.finished, attemptID: result.auditID ?? 0, hash: hash, record: record)
        finished.outcome = result.outcome.rawValue
        finished.errorCode = result.error?.code
        finished.httpStatus = result.httpStatus
        finished.cardLast4Digits = result.cardLast4Digits
        finished.comment = result.comment
        finished.latencyMilliseconds = Int(latency.components.seconds * 1000 + latency.components.attoseconds / 1_000_000_000_000_000)
        try AuditLog.append(finished, db)
        try WalletRepository.setState(result.outcome == .approved ? .activated : .requiresActivation, of: record, db)
        return result
    }

    /// Resolves everything a real run would, and writes nothing.
    func dryRun(prepared: Result<TMPClient, ActivationError>, _ db: Database) throws -> ActivationResult {
        var result = ActivationResult(outcome: .error)
        result.serialNumber = deeplink.serialNumber
        switch PassResolution(records: try WalletRepository.records(matching: query, db), query: query) {
        case .refused(let error):
            result.error = error
        case .alreadyActivated(let record):
            result.outcome = .alreadyActivated
            result.tokenUniqueReference = record.deviceAccountIdentifier
        case .target(let record):
            result.tokenUniqueReference = record.deviceAccountIdentifier
            switch prepared {
            case .failure(let error): result.error = error
            case .success(let client):
                result.outcome = .dryRun
                result.wouldSendTo = client.endpoint
            }
        }
        return result
    }

    /// Closes the attempt of a process that died mid-request as UNKNOWN.
    private func closeInterrupted(_ record: PassRecord, _ db: Database) throws -> String {
        guard let open = try AuditLog.openAttempt(serialNumber: record.serialNumber, tokenUniqueReference: record.deviceAccountIdentifier, db) else {
            return "the pass was marked activating without an open attempt; treating it as waiting for activation"
        }
        let attemptID: Int64 = open["attempt_id"]
        try AuditLog.append(AuditRow(
            attemptID: attemptID, event: .finished, at: clock(), requestID: open["request_id"],
            serialNumber: record.serialNumber, passTypeIdentifier: record.passTypeIdentifier,
            tokenUniqueReference: record.deviceAccountIdentifier, device: record.device,
            deeplinkHash: open["deeplink_hash"], outcome: Outcome.unknown.rawValue, errorCode: "activation.interrupted"
        ), db)
        return "audit \(attemptID) was left unfinished by a process that is gone; closed as UNKNOWN (activation.interrupted): TMP may have activated the token"
    }

    private func row(_ event: AuditRow.Event, attemptID: Int64, hash: String, record: PassRecord?) -> AuditRow {
        AuditRow(
            attemptID: attemptID, event: event, at: clock(), requestID: requestID,
            serialNumber: deeplink.serialNumber, passTypeIdentifier: record?.passTypeIdentifier ?? deeplink.passTypeIdentifier,
            tokenUniqueReference: record?.deviceAccountIdentifier, device: record?.device ?? device, deeplinkHash: hash
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

import ErrorCodes
import HTTPTransport
import WalletModel

/// Every decision of one activation attempt, as a value: events in, actions out. The
/// executor (``Session`` with ``Attempt``) performs each action and reports back; it
/// decides nothing. No I/O happens here, so each decision is tested as a table.
///
/// Legal order of events, each answered by one action:
/// ```
/// parsed            → checkUser | stop (the deeplink was refused; nothing is audited)
/// userCheckAnswered → resolveRecords
/// recordsResolved   → writeStarted | writeStopped | stop (dry run)
/// startedCommitted  → send
/// tmpAnswered       → send (again, after a backoff: nothing was sent) | writeFinished
/// finishCommitted   → stop
/// ```
/// `recordsResolved` comes from the same write transaction that performs the write it
/// leads to: deciding and marking the pass `activating` together is what lets only one
/// of many concurrent processes send. Any other event is a programming error: the executor
/// broke the order, and the process stops there rather than report a made-up outcome.
struct ActivationMachine: Sendable {
    /// An unfinished attempt on the target pass found in the audit.
    typealias OpenAttempt = WalletModel.OpenAttempt

    enum Event: Sendable, Equatable {
        case parsed(Result<Deeplink, DeeplinkError>)
        /// The preconditions checked once per process: the TMP configuration (credentials,
        /// TLS files) and, when required, the user check. nil: the attempt may send.
        case userCheckAnswered(ActivationError?)
        /// The pass records of the query, the open attempt on the target when its state is
        /// `activating`, and the id this attempt is audited under.
        case recordsResolved([PassRecord], openAttempt: OpenAttempt?, attemptID: Int64)
        case startedCommitted
        case tmpAnswered(Result<HTTPResponse, TransportError>)
        case finishCommitted
    }

    /// The "started" row for `record`, the pass marked `activating`; first, when there is
    /// one, the interrupted attempt closed as UNKNOWN (`activation.interrupted`).
    struct Start: Sendable, Equatable {
        var record: PassRecord
        var closing: OpenAttempt?
    }

    /// The attempt audited whole (started and finished) without sending; first, when
    /// there is one, the interrupted attempt closed as UNKNOWN.
    struct Stop: Sendable, Equatable {
        var record: PassRecord?
        var closing: OpenAttempt? = nil
        var outcome: Outcome
        var error: ActivationError?
    }

    /// The "finished" row with the answer, and the pass's next state.
    struct Finish: Sendable, Equatable {
        var record: PassRecord
        var answer: TMPAnswer
        var passState: PassState
    }

    enum Action: Sendable, Equatable {
        case checkUser
        case resolveRecords(PassQuery)
        case writeStarted(Start)
        case writeStopped(Stop)
        /// Send the request for `record` once, after waiting `delay`.
        case send(PassRecord, after: Duration)
        case writeFinished(Finish)
        case stop(ActivationResult)
    }

    private enum State: Sendable {
        case idle
        case parsed(PassQuery)
        case checked(PassQuery, userCheck: ActivationError?)
        case starting(PassRecord)
        case sending(PassRecord, tries: Int)
        /// The attempt's last rows are being written (stopped without sending, or answered).
        case closing
        case done
    }

    private var state = State.idle
    /// What will be printed, filled in as the attempt goes.
    private(set) var result: ActivationResult
    let device: String?
    let retry: TMPSettings.Retry
    /// With `dryRun`, the machine stops once the pass is resolved: where it would send.
    let dryRunEndpoint: String?

    /// - Parameters:
    ///   - requestID: the `X-Request-ID` of this attempt.
    ///   - device: names the pass when a serial has several.
    ///   - dryRunEndpoint: set for `--dry-run`, the URL that would be posted to.
    init(requestID: String?, device: String?, retry: TMPSettings.Retry, dryRunEndpoint: String? = nil) {
        result = ActivationResult(outcome: .error)
        result.requestID = dryRunEndpoint == nil ? requestID : nil
        self.device = device
        self.retry = retry
        self.dryRunEndpoint = dryRunEndpoint
    }

    mutating func handle(_ event: Event) -> Action {
        switch (state, event) {
        case (.idle, .parsed(.failure(let error))):
            result = .refused(error)
            state = .done
            return .stop(result)
        case (.idle, .parsed(.success(let deeplink))):
            state = .parsed(
                PassQuery(
                    serialNumber: deeplink.serialNumber, passTypeIdentifier: deeplink.passTypeIdentifier, device: device
                ))
            result.serialNumber = deeplink.serialNumber
            return .checkUser
        case (.parsed(let query), .userCheckAnswered(let error)):
            state = .checked(query, userCheck: error)
            return .resolveRecords(query)
        case (.checked(let query, let userCheck), .recordsResolved(let records, let open, let attemptID)):
            return resolved(records, open: open, attemptID: attemptID, query: query, userCheck: userCheck)
        case (.starting(let record), .startedCommitted):
            state = .sending(record, tries: 1)
            return .send(record, after: .zero)
        case (.sending(let record, let tries), .tmpAnswered(let answer)):
            return answered(answer, record: record, tries: tries)
        case (.closing, .finishCommitted):
            state = .done
            return .stop(result)
        default:
            preconditionFailure("activation machine: event \(event) in state \(state)")
        }
    }

    /// Whether this attempt only resolves (`--dry-run`).
    var isDryRun: Bool { dryRunEndpoint != nil }

    private mutating func resolved(
        _ records: [PassRecord], open: OpenAttempt?, attemptID: Int64, query: PassQuery, userCheck: ActivationError?
    ) -> Action {
        if !isDryRun { result.auditID = attemptID }
        switch PassResolution(records: records, query: query) {
        case .refused(let error):
            return stopAudited(record: nil, error: error)
        case .alreadyActivated(let record):
            result.tokenUniqueReference = record.deviceAccountIdentifier
            result.outcome = .alreadyActivated
            return stopAudited(record: record, error: nil)
        case .target(let record):
            result.tokenUniqueReference = record.deviceAccountIdentifier
            var closing: OpenAttempt?
            if record.state == .activating && !isDryRun {
                if let open, open.ownerIsAlive {
                    return stopAudited(
                        record: record,
                        error: ActivationError(
                            code: .activationInProgress,
                            message:
                                "an activation of this pass is already in progress (audit \(open.attemptID)); nothing was sent"
                        ))
                }
                closing = open
                result.warnings.append(
                    open.map {
                        "audit \($0.attemptID) was left unfinished by a process that is gone; closed as UNKNOWN (activation.interrupted): TMP may have activated the token"
                    } ?? "the pass was marked activating without an open attempt; treating it as waiting for activation"
                )
            }
            if let userCheck {
                return stopAudited(record: record, error: userCheck, closing: closing)
            }
            if let endpoint = dryRunEndpoint {
                result.outcome = .dryRun
                result.wouldSendTo = endpoint
                state = .done
                return .stop(result)
            }
            state = .starting(record)
            return .writeStarted(Start(record: record, closing: closing))
        }
    }

    private mutating func answered(
        _ answer: Result<HTTPResponse, TransportError>, record: PassRecord, tries: Int
    ) -> Action {
        let mapped: TMPAnswer
        switch answer {
        case .success(let response):
            mapped = TMPAnswer(response)
        case .failure(let error) where error.isRetryable && tries < retry.attempts:
            state = .sending(record, tries: tries + 1)
            return .send(record, after: retry.backoff(after: tries))
        case .failure(let error):
            mapped = TMPAnswer(error)
        }
        result.apply(mapped)
        state = .closing
        return .writeFinished(
            Finish(
                record: record, answer: mapped,
                passState: mapped.outcome == .approved ? .activated : .requiresActivation))
    }

    /// Nothing will be sent: in a real run the attempt is audited whole; a dry run stops.
    private mutating func stopAudited(
        record: PassRecord?, error: ActivationError?, closing: OpenAttempt? = nil
    ) -> Action {
        result.error = error
        guard !isDryRun else {
            state = .done
            return .stop(result)
        }
        state = .closing
        return .writeStopped(Stop(record: record, closing: closing, outcome: result.outcome, error: error))
    }
}

extension ActivationMachine.Event {
    /// What a ledger read, as the machine takes it.
    static func resolved(_ passes: ResolvedPasses) -> Self {
        .recordsResolved(passes.records, openAttempt: passes.openAttempt, attemptID: passes.attemptID)
    }
}

extension ActivationMachine.Action {
    /// The event that reports this write action committed.
    var committedEvent: ActivationMachine.Event? {
        switch self {
        case .writeStarted: .startedCommitted
        case .writeStopped, .writeFinished: .finishCommitted
        case .checkUser, .resolveRecords, .send, .stop: nil
        }
    }
}

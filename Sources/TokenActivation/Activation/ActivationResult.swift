import ErrorCodes
import TextFormats
import WalletModel

/// What one `activate` did, as printed: the outcome, what was sent, the audit id and
/// the error. (What is in flight is ``ActivationMachine``'s; what is audited, ``AuditRow``.)
public struct ActivationResult: Sendable, Equatable {
    public var outcome: Outcome
    public var serialNumber: String?
    /// The device account identifier sent (or that would be sent) as tokenUniqueReference.
    public var tokenUniqueReference: String?
    public var cardLast4Digits: String?
    public var comment: String?
    public var httpStatus: Int?
    public var requestID: String?
    public var auditID: Int64?
    public var error: ActivationError?
    /// Things the user should know that did not stop the activation.
    public var warnings: [String] = []
    /// Set by `--dry-run`: where the request would go. Nothing was sent or written.
    public var wouldSendTo: String?
    init(outcome: Outcome, error: ActivationError? = nil) {
        self.outcome = outcome
        self.error = error
    }

    /// A deeplink the parser refused: nothing is sent or audited.
    static func refused(_ error: DeeplinkError) -> ActivationResult {
        ActivationResult(outcome: .error, error: ActivationError(error))
    }

    /// An attempt that stopped before the pipeline ran (the configuration could not be loaded).
    public static func notRun(_ error: any CodedError) -> ActivationResult {
        ActivationResult(outcome: .error, error: ActivationError(error))
    }

    /// A finished attempt as its audit entry keeps it: what an Idempotency-Key repeat
    /// answers when the first request's answer was never stored. Nil while it is open.
    public init?(finished entry: AuditEntry) {
        guard let text = entry.outcome, let outcome = Outcome(rawValue: text) else { return nil }
        self.init(outcome: outcome)
        serialNumber = entry.serialNumber
        tokenUniqueReference = entry.tokenUniqueReference
        cardLast4Digits = entry.cardLast4Digits
        comment = entry.comment
        httpStatus = entry.httpStatus
        requestID = entry.requestID
        auditID = entry.id
        if let code = entry.errorCode.flatMap(ErrorCode.init(rawValue:)) {
            error = ActivationError(code: code, message: Self.auditedMessage(code))
        } else if outcome == .unknown || outcome == .error {
            error = ActivationError(
                code: .storageCorrupt, message: "audit \(entry.id) is \(text) without an error code")
        }
    }

    /// The message of an error read back from the audit, which keeps its code only.
    private static func auditedMessage(_ code: ErrorCode) -> String {
        switch code {
        case .activationInterrupted:
            "the attempt's process stopped while the request was at TMP; closed as UNKNOWN: TMP may have activated the token (check with wallet show, or TMP)"
        default:
            code.meaning
        }
    }

    /// The process exit status of this result (DESIGN §2).
    public var exitStatus: ExitStatus {
        switch outcome {
        case .approved, .alreadyActivated, .dryRun: return .success
        case .declined: return .declined
        case .failed: return .failed
        // An ERROR or UNKNOWN result always carries its error (the machine sets one with
        // either outcome): without one it is a programming error, not a TMP failure.
        case .unknown, .error:
            guard let error else { preconditionFailure("an \(outcome.rawValue) result without its error") }
            return error.code.exitStatus
        }
    }

    /// The documented JSON object; identifiers masked unless `reveal`.
    /// - Parameter message: the error message as printed (the command line adds the next step).
    public func json(reveal: Bool, message: String? = nil) -> JSONObject {
        var object = JSONObject([
            "outcome": .string(outcome.rawValue), "exitCode": .int(Int(exitStatus.rawValue)),
            "serialNumber": .optional(serialNumber.map { Mask.identifier($0, reveal: reveal) }),
            "tokenUniqueReference": .optional(tokenUniqueReference.map { Mask.identifier($0, reveal: reveal) }),
            "cardLast4Digits": .optional(cardLast4Digits), "comment": .optional(comment),
            "httpStatus": httpStatus.map { .int($0) } ?? .null, "requestId": .optional(requestID),
            "auditId": auditID.map { .int(Int($0)) } ?? .null,
            "error": error.map { .object(.error(code: $0.code, message: message ?? $0.message)) } ?? .null,
        ])
        if let wouldSendTo {
            object.append("dryRun", .object(JSONObject(["url": .string(wouldSendTo)])))
        }
        if !warnings.isEmpty {
            object.append("warnings", .array(warnings.map { .string($0) }))
        }
        return object
    }
}

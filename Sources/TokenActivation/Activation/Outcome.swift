import ErrorCodes
import OnboardingCore

/// How an activation attempt ended, as printed and audited.
public enum Outcome: String, Sendable, CaseIterable {
    /// TMP approved: the pass is now `activated`.
    case approved = "APPROVED"
    case declined = "DECLINED"
    case failed = "FAILED"
    /// The pass was already activated; nothing was sent.
    case alreadyActivated = "ALREADY_ACTIVATED"
    /// The request was sent and no usable answer came (timeout, dropped connection, 5xx).
    case unknown = "UNKNOWN"
    /// Nothing was sent, or the answer broke the contract.
    case error = "ERROR"
    /// `--dry-run` resolved everything and would send; nothing was sent or written.
    case dryRun = "DRY_RUN"
}

/// A failure of one activation, with a stable code (`deeplink.*`, `wallet.*`, `tmp.*`,
/// `config.*`, `storage.*`, `activation.*`, `user.*`, `onboarding.*`) and a message safe
/// to print.
public struct ActivationError: GuidedError, Equatable {
    public let code: ErrorCode
    public let message: String
    /// What the user can do about it, when there is a step to name.
    public let nextStep: NextStep?

    public init(code: ErrorCode, message: String, nextStep: NextStep? = nil) {
        self.code = code
        self.message = message
        self.nextStep = nextStep
    }

    public init(_ error: any CodedError) {
        self.init(code: error.code, message: error.message, nextStep: (error as? any GuidedError)?.nextStep)
    }

    /// Any error met while activating, as an activation error; one that carries no code
    /// is a database failure (it can only come from the database layer).
    static func coded(_ error: any Error) -> ActivationError {
        if let coded = error as? any CodedError { return ActivationError(coded) }
        return ActivationError(code: .storageIO, message: "\(error)")
    }
}

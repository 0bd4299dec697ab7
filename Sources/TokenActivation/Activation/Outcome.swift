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
/// `config.*`, `storage.*`, `activation.*`, `user.*`) and a message safe to print.
public struct ActivationError: CodedError, Equatable {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    init(_ error: any CodedError) {
        self.init(code: error.code, message: error.message)
    }
}

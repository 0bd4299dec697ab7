import ErrorCodes

/// Why a verification call did not go on: a stable code, a message without secrets (never
/// an OTP or image bytes), and the step that fits.
public struct VerificationError: GuidedError, Equatable, CustomStringConvertible {
    public let code: ErrorCode
    public let message: String
    public let nextStep: NextStep?
    /// Attempts left after a wrong OTP.
    public var remainingAttempts: Int?

    init(_ code: ErrorCode, _ message: String, next: NextStep? = nil, remainingAttempts: Int? = nil) {
        self.code = code
        self.message = message
        self.nextStep = next
        self.remainingAttempts = remainingAttempts
    }

    public var description: String { message }

    static func unexpectedState(phase: VerificationPhase?, status: VerificationStatus) -> Self {
        Self(
            .verificationUnexpectedState,
            "the server reported phase \(phase?.rawValue ?? "none") with status \(status.rawValue), which no verification state fits",
            next: .verificationStatus)
    }

    static let missingStatus = Self(
        .verificationMissingStatus,
        "no verification status is known here (none was asked yet, or the last call failed)", next: .verificationStatus)

    static let activationNotActive = Self(
        .verificationActivationNotActive, "the device activation is no longer active on the server",
        next: .removeDeviceLocallyAndOnboard)

    /// A command after the verification succeeded: the server refuses every call but status
    /// then ("ONBOARDING_FAILED"), which is not an end state.
    static func succeeded(nothingTo action: String) -> Self {
        Self(.verificationWrongStep, "the verification succeeded; there is nothing to \(action)", next: nil)
    }

    static let cancelVerified = Self(
        .verificationWrongStep,
        "the verification succeeded; cancelling the onboarding process now discards the verified device activation (tokenctl verification cancel --force does)",
        next: nil
    )

    static func wrongStep(_ state: VerificationState, needs: String, action: String) -> Self {
        if state == .success { return succeeded(nothingTo: action) }
        return Self(
            .verificationWrongStep, "the verification is in state \(state.name), not \(needs)",
            next: .verificationStatus)
    }

    /// The server codes that name a state: an end state or a restartable failure.
    static func forServerCode(_ code: String?, message: String?) -> Self? {
        let detail = [code, message].compactMap { $0 }.joined(separator: ": ")
        switch code {
        case "ONBOARDING_FAILED": return .endstate(.other, detail)
        case "ONBOARDING_PROCESS_LIMIT_REACHED": return .endstate(.limitReached, detail)
        case "IDENTITY_VERIFICATION_FAILED", "PRESENCE_CHECK_LIMIT_REACHED", "IDENTITY_VERIFICATION_LIMIT_REACHED":
            return .failed(detail)
        default: return nil
        }
    }

    static func wrongOTP(remaining: Int) -> Self {
        Self(
            .verificationWrongOTP, "wrong OTP; \(remaining) \(remaining == 1 ? "attempt" : "attempts") left",
            next: .verifyVerificationOTP, remainingAttempts: remaining)
    }

    static let otpFailed = Self(
        .verificationOTPFailed,
        "the OTP was refused with no attempts left: it ran out, expired, or none is expected now",
        next: .verificationStatus)

    static func failed(_ detail: String) -> Self {
        Self(.verificationFailed, "identity verification failed (\(detail))", next: .restartVerification)
    }

    static func endstate(_ reason: VerificationState.EndstateReason, _ detail: String? = nil) -> Self {
        Self(
            .verificationEndstate,
            "the server ended the onboarding process (\(reason.rawValue)\(detail.map { ", \($0)" } ?? ""))",
            next: .removeDeviceLocallyAndOnboard)
    }

    /// A restart asked in an end state: nothing in the process can continue (restart is for
    /// a failed verification only).
    static func restartInEndstate(_ reason: VerificationState.EndstateReason) -> Self {
        Self(
            .verificationEndstate,
            "the verification is in an end state (\(reason.rawValue)): the onboarding process cannot continue, and restart is for a failed verification only",
            next: .cancelVerificationAndOnboard)
    }

    static let tooEarly = Self(
        .verificationTooEarly, "a new OTP cannot be sent yet; wait for the resend period", next: .verifyVerificationOTP)

    static func fileTooLarge(_ path: String, bytes: Int) -> Self {
        Self(
            .verificationFileTooLarge,
            "\(path) is \(bytes) bytes; a document image must be at most \(DocumentSubmission.maximumImageBytes) bytes (1 MiB)"
        )
    }

    static func fileUnreadable(_ path: String, _ reason: String) -> Self {
        Self(.verificationFileUnreadable, "\(path) cannot be read: \(reason)")
    }

    static func invalidDocument(_ detail: String) -> Self {
        Self(.verificationInvalidDocument, detail)
    }
}

/// Where an activation process stands, from the server's `onboardingStatus`.
public enum ActivationProcessStatus: String, Sendable, CaseIterable {
    /// Started: activate with the OTP.
    case activationInProgress
    /// Activated: identity verification is running.
    case verificationInProgress
    /// Failed (expired, refused or cancelled): start over.
    case failed
    /// Activated and verified.
    case finished

    /// The wire value (`ACTIVATION_IN_PROGRESS`, …); nil for a value this client does not know.
    public init?(wire: String) {
        switch wire {
        case "ACTIVATION_IN_PROGRESS": self = .activationInProgress
        case "VERIFICATION_IN_PROGRESS": self = .verificationInProgress
        case "FAILED": self = .failed
        case "FINISHED": self = .finished
        default: return nil
        }
    }
}

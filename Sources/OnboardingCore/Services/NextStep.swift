import ErrorCodes

/// What the user can do next about a state the onboarding core reports. The library
/// names the step; the command line turns it into the command to run.
public enum NextStep: String, Sendable, Equatable, CaseIterable {
    /// Finish the running onboarding process with its OTP, or cancel it.
    case finishOrCancelOnboarding
    /// Finish the running onboarding process with its OTP.
    case finishOnboarding
    /// Start an onboarding process (again).
    case startOnboarding
    /// Start an onboarding process, then activate with its OTP.
    case onboard
    /// Look at the device activation this instance has.
    case showDevice
    /// Activate this device first.
    case activateDevice
    /// Forget this instance's device activation.
    case removeDevice
    /// Forget the local device activation the server no longer accepts, then onboard again.
    case removeDeviceLocallyAndOnboard
    /// Cancel the onboarding process that ended (identity verification in an end state),
    /// then onboard again: nothing in it can continue.
    case cancelVerificationAndOnboard
    /// Create the device's token first.
    case createToken
    /// Finish identity verification, then try again.
    case finishVerification
    /// Ask the verification status, which names the step after it.
    case verificationStatus
    /// Read and approve the consent.
    case approveConsent
    /// Choose the document types to scan.
    case selectDocuments
    /// Submit the document images.
    case submitDocuments
    /// Start the presence check.
    case startPresenceCheck
    /// Say the presence check is done.
    case finishPresenceCheck
    /// Enter the verification OTP.
    case verifyVerificationOTP
    /// Start identity verification again.
    case restartVerification
    /// Register a PIN login identity.
    case registerLogin
    /// Open the link in the confirmation e-mail, then confirm the registration.
    case confirmLogin
    /// Set the PIN that finishes the registration.
    case setLoginPIN
    /// Log in with the PIN.
    case logIn
    /// Delete the PIN login user of this installation.
    case deleteLogin
    /// Delete the blocked PIN login user, then register again.
    case deleteLoginAndRegister
}

/// A coded error that may name the user's next step.
public protocol GuidedError: CodedError {
    var nextStep: NextStep? { get }
}

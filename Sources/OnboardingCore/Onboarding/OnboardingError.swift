import ErrorCodes
import TextFormats
import WalletModel

/// Why an onboarding call failed: the contract's reason, what the server said, and a
/// stable code (``code``) for exit codes, JSON and the audit.
public struct OnboardingError: GuidedError, Equatable, CustomStringConvertible {
    /// The client error reasons of the onboarding contract.
    public enum Reason: String, Sendable {
        /// An ERROR envelope, at any HTTP status.
        case networkGeneric = "network_generic"
        /// An unparsable body with an HTTP status other than 200.
        case networkErrorStatusCode = "network_errorStatusCode"
        /// An unparsable body with HTTP 200.
        case networkInvalidResponseObject = "network_invalidResponseObject"
        case networkTimeOut = "network_timeOut"
        case networkNoInternetConnection = "network_noInternetConnection"
        /// A parsable OK answer with missing fields or unknown values.
        case networkBadServerResponse = "network_badServerResponse"
        case networkSSLError = "network_sslError"
        /// `start` while a process is stored.
        case activationInProgress = "wdo_activation_inProgress"
        /// `status`, `activate`, `cancel` or `resendOTP` with no process stored.
        case activationNotRunning = "wdo_activation_notRunning"
        /// The instance already has a device activation.
        case activationCannotActivate = "wdo_activation_cannotActivate"
    }

    public let reason: Reason
    /// The HTTP status of the answer, when there was one.
    public var httpStatus: Int?
    /// The REST error code of an ERROR envelope (`ONBOARDING_OTP_FAILED`, `ERR_ACTIVATION`, …).
    public var serverCode: String?
    /// The server's message, truncated.
    public var serverMessage: String?
    /// Top-level `remainingAttempts` of a refused activation OTP.
    public var remainingAttempts: Int?
    /// What happened, for people; never a credential or an OTP.
    public var detail: String

    /// For `onboarding.notRunning`: what to do, which depends on why no process runs.
    var notRunningStep: NextStep?

    public init(
        _ reason: Reason, httpStatus: Int? = nil, serverCode: String? = nil, serverMessage: String? = nil,
        remainingAttempts: Int? = nil, detail: String
    ) {
        self.reason = reason
        self.httpStatus = httpStatus
        self.serverCode = serverCode
        self.serverMessage = serverMessage.map {
            $0.unicodeScalars.count > 200 ? SafeText.prefix($0, scalars: 200) + "…" : $0
        }
        self.remainingAttempts = remainingAttempts
        self.detail = detail
    }

    /// `wdo_activation_notRunning`: no process is stored for this instance.
    /// - Parameter activated: whether the instance already has a device activation.
    public static func notRunning(activated: Bool) -> OnboardingError {
        var error = OnboardingError(
            .activationNotRunning,
            detail: activated
                ? "this instance has a device activation (from an earlier onboarding or an activation code)"
                : "none was started")
        error.notRunningStep = activated ? .showDevice : .startOnboarding
        return error
    }

    /// True when the server was never reached or never answered ("offline"): a
    /// failed activation then keeps the stored process.
    public var isOffline: Bool {
        [.networkTimeOut, .networkNoInternetConnection, .networkSSLError].contains(reason)
    }

    /// True when the server refused an activation OTP and allows another try.
    public var allowsOTPRetry: Bool { (remainingAttempts ?? 0) > 0 }

    /// The stable code: `onboarding.*`.
    public var code: ErrorCode {
        switch reason {
        case .activationInProgress: return .onboardingInProgress
        case .activationNotRunning: return .onboardingNotRunning
        case .activationCannotActivate: return .onboardingCannotActivate
        case .networkTimeOut, .networkNoInternetConnection: return .onboardingUnreachable
        case .networkSSLError: return .onboardingTLS
        case .networkInvalidResponseObject, .networkBadServerResponse: return .onboardingProtocol
        case .networkErrorStatusCode: return (httpStatus ?? 0) >= 500 ? .onboardingServerError : .onboardingProtocol
        case .networkGeneric:
            let status = httpStatus ?? 0
            if status >= 500 { return .onboardingServerError }
            // An ERROR envelope with HTTP 200 is not what the contract allows.
            if status == 200 { return .onboardingProtocol }
            switch serverCode {
            case "ERR_ACTIVATION": return allowsOTPRetry ? .onboardingOTPInvalid : .onboardingProcessFailed
            case "ONBOARDING_FAILED": return .onboardingProcessFailed
            case "ONBOARDING_OTP_FAILED": return .onboardingResendTooEarly
            case "TOO_MANY_ONBOARDING_PROCESSES", "ONBOARDING_PROCESS_LIMIT_REACHED": return .onboardingLimitReached
            default: return .onboardingProtocol
            }
        }
    }

    /// What happened, for people; ``nextStep`` names what to do about it.
    public var message: String {
        let server = serverCode.map { code in " (\(code)" + (serverMessage.map { ": \($0)" } ?? "") + ")" } ?? ""
        switch code {
        case .onboardingInProgress: return "an onboarding process is already running for this instance"
        case .onboardingNotRunning: return "no onboarding process is running for this instance: \(detail)"
        case .onboardingCannotActivate:
            return "this instance already has a device activation, so no onboarding process can run"
        case .onboardingOTPInvalid:
            return "wrong OTP; \(remainingAttempts ?? 0) attempt\(remainingAttempts == 1 ? "" : "s") left\(server)"
        case .onboardingProcessFailed: return "the onboarding process failed or ran out of OTP attempts\(server)"
        case .onboardingResendTooEarly:
            return "the OTP cannot be resent yet: wait for the resend period to pass\(server)"
        case .onboardingLimitReached:
            return "too many onboarding processes for this identification; try again later\(server)"
        case .onboardingUnreachable, .onboardingTLS: return "the onboarding server is unreachable: \(detail)"
        case .onboardingServerError: return "the onboarding server failed (HTTP \(httpStatus ?? 0))\(server)"
        default: return "unexpected answer from the onboarding server: \(detail)\(server)"
        }
    }

    public var nextStep: NextStep? {
        switch code {
        case .onboardingInProgress: .finishOrCancelOnboarding
        case .onboardingCannotActivate: .showDevice
        case .onboardingProcessFailed: .startOnboarding
        case .onboardingNotRunning: notRunningStep
        default: nil
        }
    }

    public var description: String { "\(code) [\(reason.rawValue)]: \(message)" }
}

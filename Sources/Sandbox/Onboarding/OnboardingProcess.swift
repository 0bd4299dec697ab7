import Foundation
import PowerAuth

/// One activation process as the simulated onboarding server keeps it: a value whose
/// methods are its transitions, driven with the time passed in.
///
/// `activationInProgress` → (right OTP) `verificationInProgress`, or `finished` when
/// verification is skipped; → (fifth wrong OTP, 5 minutes, cleanup) `failed`.
/// `verificationInProgress` → (verification ends) `finished`; → (1 hour, cleanup) `failed`.
/// Any unfinished process fails after 3 hours.
struct OnboardingProcess {
    enum Status: String {
        case activationInProgress = "ACTIVATION_IN_PROGRESS"
        case verificationInProgress = "VERIFICATION_IN_PROGRESS"
        case failed = "FAILED"
        case finished = "FINISHED"
    }

    static let activationTimeout: TimeInterval = 5 * 60
    static let verificationTimeout: TimeInterval = 60 * 60
    static let processTimeout: TimeInterval = 3 * 60 * 60

    let id: String
    /// The identification object as canonical JSON (sorted keys).
    let identification: String
    let createdAt: Date
    var status = Status.activationInProgress
    private(set) var otp: SentOTP
    /// The device activation made with this process's OTP.
    private(set) var activationID: String?
    private(set) var verificationStartedAt: Date?

    /// The device's identity verification flag, mirrored on its activation.
    enum IdentityFlag: String {
        case pending = "VERIFICATION_PENDING"
        case inProgress = "VERIFICATION_IN_PROGRESS"
    }

    var identityFlag: IdentityFlag?
    /// The current identity verification (nil until `identity/init`) and what counts
    /// toward the limits: verifications started, presence checks, the error score.
    var verification: IdentityVerification?
    var verificationsStarted = 0
    var presenceChecks = 0
    var errorScore = 0

    init(id: String, identification: String, otp: String, now: Date) {
        self.id = id
        self.identification = identification
        createdAt = now
        self.otp = SentOTP(code: otp, issuedAt: now)
    }

    var isActive: Bool { status == .activationInProgress || status == .verificationInProgress }

    /// Fails the process when its time is up.
    /// - Returns: the device activation to remove when it has just failed with one.
    mutating func expire(now: Date) -> String? {
        let age = now.timeIntervalSince(createdAt)
        let expired =
            switch status {
            case .activationInProgress: age > Self.activationTimeout || age > Self.processTimeout
            case .verificationInProgress:
                now.timeIntervalSince(verificationStartedAt ?? createdAt) > Self.verificationTimeout
                    || age > Self.processTimeout
            case .failed, .finished: false
            }
        guard expired else { return nil }
        status = .failed
        return activationID
    }

    enum Resend { case sent, tooEarly, notActive }

    /// A new OTP, unless inside the resend period or past the activation step.
    mutating func resend(otp code: String, now: Date) -> Resend {
        guard status == .activationInProgress else { return .notActive }
        guard otp.mayResend(now: now) else { return .tooEarly }
        otp = SentOTP(code: code, issuedAt: now)
        return .sent
    }

    /// The check of an activation's OTP. The fifth failure fails the process;
    /// `remainingAttempts` is `5 - failed` while the process is active, else 0.
    mutating func verify(otp code: String, activationID: String, now: Date, skipVerification: Bool) -> IdentityDecision
    {
        let refused = "POWER_AUTH_ACTIVATION_INVALID"
        guard status == .activationInProgress, !otp.isExpired(now: now) else {
            return .reject(message: refused, remainingAttempts: 0)
        }
        guard otp.matches(code) else {
            otp.failedAttempts += 1
            errorScore += 1
            if otp.isExhausted { status = .failed }
            return .reject(message: refused, remainingAttempts: isActive ? otp.remainingAttempts : 0)
        }
        self.activationID = activationID
        if skipVerification {
            status = .finished
            return .accept(flags: [])
        }
        status = .verificationInProgress
        verificationStartedAt = now
        identityFlag = .pending
        return .accept(flags: [IdentityFlag.pending.rawValue])
    }

    /// Identity verification ended well.
    mutating func finishVerification() -> Bool {
        guard status == .verificationInProgress else { return false }
        status = .finished
        identityFlag = nil
        return true
    }

    /// Cleanup: the process fails.
    /// - Returns: the device activation to remove.
    mutating func cancel() -> String? {
        status = .failed
        return activationID
    }
}

import Foundation

/// Identity verification of one onboarding process, as the simulated enrollment server
/// keeps it: a value whose methods are the contract's "server semantics", driven with the
/// time passed in. The background progression moves one step per `stepInterval`; with an
/// interval of 0 (tests) it runs until the flow waits for the user.
struct IdentityVerification {
    enum Phase: String {
        case documentUpload = "DOCUMENT_UPLOAD"
        case documentVerification = "DOCUMENT_VERIFICATION"
        case documentVerificationFinal = "DOCUMENT_VERIFICATION_FINAL"
        case clientEvaluation = "CLIENT_EVALUATION"
        case presenceCheck = "PRESENCE_CHECK"
        case otpVerification = "OTP_VERIFICATION"
        case completed = "COMPLETED"
    }

    enum Status: String {
        case notInitialized = "NOT_INITIALIZED"
        case inProgress = "IN_PROGRESS"
        case verificationPending = "VERIFICATION_PENDING"
        case accepted = "ACCEPTED"
        case rejected = "REJECTED"
        case failed = "FAILED"
    }

    struct Document {
        let id: String
        let filename: String
        let type: String
        let side: String
        var status: String
        var errors: [String]
        /// The image asked for an end state (`SBXENDSTATE` in its bytes).
        let endstate: Bool
        /// The image asked for a failed presence check (`SBXPRESENCEFAIL`).
        var failsPresenceCheck = false
    }

    static let documentError = "Error verifying the document."

    private(set) var phase: Phase = .documentUpload
    private(set) var status: Status = .inProgress
    private(set) var documents: [Document] = []
    private(set) var otp: SentOTP?
    private(set) var presenceCheckFailed = false
    /// Presence checks found failed when the OTP was verified.
    private(set) var presenceCheckFailures = 0
    private var lastStep: Date

    init(now: Date) {
        lastStep = now
    }

    /// The documents `document/status` lists (a replaced original is not among them).
    var listedDocuments: [Document] { documents.filter { $0.status != "DISPOSED" } }

    var spentDocuments: Int { documents.filter { ["DISPOSED", "REJECTED", "FAILED"].contains($0.status) }.count }

    // MARK: Background progression

    /// Runs the background steps due by `now`: one per `stepInterval` (all of them when it
    /// is 0). While the flow waits for the user, the clock of the steps stays at `now`, so
    /// the first step after a user event comes one interval later.
    /// - Returns: the OTPs issued, for delivery.
    mutating func advance(now: Date, stepInterval: TimeInterval, presenceCheck: Bool, makeOTP: () -> String) -> [String]
    {
        var issued: [String] = []
        while stepInterval == 0 || now.timeIntervalSince(lastStep) >= stepInterval {
            guard let result = step(now: now, presenceCheck: presenceCheck, makeOTP: makeOTP) else {
                lastStep = now
                break
            }
            if case .otp(let code) = result { issued.append(code) }
            lastStep = stepInterval == 0 ? now : lastStep.addingTimeInterval(stepInterval)
        }
        return issued
    }

    private enum StepResult {
        case moved
        case otp(String)
    }

    private mutating func step(now: Date, presenceCheck: Bool, makeOTP: () -> String) -> StepResult? {
        switch (phase, status) {
        case (.documentUpload, .inProgress):
            guard documents.contains(where: { $0.status == "VERIFICATION_PENDING" }) else { return nil }
            status = .verificationPending
        case (.documentUpload, .verificationPending):
            for index in documents.indices where documents[index].status == "VERIFICATION_PENDING" {
                documents[index].status = "ACCEPTED"
            }
            (phase, status) = requiredSetAccepted ? (.documentVerification, .accepted) : (.documentUpload, .inProgress)
        case (.documentVerification, .accepted):
            (phase, status) = (.documentVerificationFinal, .inProgress)
        case (.documentVerificationFinal, .inProgress):
            status = listedDocuments.contains(where: \.endstate) ? .rejected : .accepted
        case (.documentVerificationFinal, .accepted):
            (phase, status) = (.clientEvaluation, .inProgress)
        case (.clientEvaluation, .inProgress):
            status = .accepted
        case (.clientEvaluation, .accepted):
            if presenceCheck {
                (phase, status) = (.presenceCheck, .notInitialized)
            } else {
                return .otp(issueOTP(makeOTP(), now: now))
            }
        case (.presenceCheck, .verificationPending):
            return .otp(issueOTP(makeOTP(), now: now))
        default:
            return nil
        }
        return .moved
    }

    /// Two distinct documents of ID_CARD, PASSPORT and DRIVING_LICENSE, all accepted, the
    /// ID card (primary) with both sides.
    private var requiredSetAccepted: Bool {
        let listed = listedDocuments
        guard listed.allSatisfy({ $0.status == "ACCEPTED" }) else { return false }
        let sides = Set(listed.filter { $0.type == "ID_CARD" }.map(\.side))
        let secondary = listed.contains { $0.type == "PASSPORT" || $0.type == "DRIVING_LICENSE" }
        return sides == ["FRONT", "BACK"] && secondary
    }

    private mutating func issueOTP(_ code: String, now: Date) -> String {
        (phase, status) = (.otpVerification, .verificationPending)
        otp = SentOTP(code: code, issuedAt: now)
        return code
    }

    // MARK: User events

    /// Adds submitted documents; originals named by `originalDocumentId` become DISPOSED.
    mutating func submit(_ submitted: [Document], replacing originals: [String]) {
        for index in documents.indices where originals.contains(documents[index].id) {
            documents[index].status = "DISPOSED"
        }
        documents += submitted
    }

    func hasDocument(id: String) -> Bool { documents.contains { $0.id == id && $0.status != "DISPOSED" } }

    var canSubmit: Bool { phase == .documentUpload && status == .inProgress }

    enum PresenceInit { case started, wrongState }

    mutating func initPresenceCheck() -> PresenceInit {
        guard phase == .presenceCheck, status == .notInitialized || status == .inProgress else { return .wrongState }
        status = .inProgress
        return .started
    }

    /// The check's result is known when the OTP is verified: it fails once when an image
    /// asked for it.
    mutating func submitPresenceCheck() -> Bool {
        guard phase == .presenceCheck, status == .inProgress else { return false }
        status = .verificationPending
        presenceCheckFailed = presenceCheckFailures == 0 && listedDocuments.contains(where: \.failsPresenceCheck)
        return true
    }

    enum Resend { case sent, tooEarly, wrongState }

    mutating func resendOTP(_ code: String, now: Date) -> Resend {
        guard phase == .otpVerification, let current = otp else { return .wrongState }
        guard current.mayResend(now: now) else { return .tooEarly }
        otp = SentOTP(code: code, issuedAt: now)
        return .sent
    }

    enum OTPResult: Equatable {
        case notActive
        case expired
        case wrong(remaining: Int)
        /// The fifth failure: the verification is reset.
        case exhausted
        case presenceCheckFailed
        case verified
    }

    mutating func verifyOTP(_ code: String, now: Date) -> OTPResult {
        guard phase == .otpVerification, var current = otp else { return .notActive }
        guard !current.isExpired(now: now) else { return .expired }
        guard current.matches(code) else {
            current.failedAttempts += 1
            otp = current
            return current.isExhausted ? .exhausted : .wrong(remaining: current.remainingAttempts)
        }
        otp = nil
        if presenceCheckFailed {
            presenceCheckFailed = false
            presenceCheckFailures += 1
            (phase, status) = (.presenceCheck, .notInitialized)
            return .presenceCheckFailed
        }
        (phase, status) = (.completed, .accepted)
        return .verified
    }

    /// Cleanup or expiry.
    mutating func fail() {
        (phase, status) = (.completed, .failed)
        otp = nil
    }
}

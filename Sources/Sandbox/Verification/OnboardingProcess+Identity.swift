import Foundation

/// The identity verification events of one process, as the enrollment server handles
/// them: each answers what the endpoint sends back and changes the process, including the
/// limits (verifications, presence checks, the error score).
extension OnboardingProcess {
    static let verificationLimit = 5
    static let presenceCheckLimit = 5
    static let documentLimit = 5
    /// The process fails when its error score goes above this.
    static let errorScoreLimit = 15

    enum Score {
        static let documentFailed = 1, documentRejected = 2, otpFailed = 2, reset = 3
    }

    typealias Answer = OnboardingServer.Answer

    /// The pair `identity/status` reports: (none, NOT_INITIALIZED) while the flag is
    /// `VERIFICATION_PENDING` or nothing was started, (COMPLETED, FAILED) once the process
    /// failed, else the verification's own.
    var identityPair: (phase: String?, status: String) {
        if status == .failed { return ("COMPLETED", "FAILED") }
        guard identityFlag != .pending, let verification else { return (nil, "NOT_INITIALIZED") }
        return (verification.phase.rawValue, verification.status.rawValue)
    }

    /// Runs the background steps due by `now`. - Returns: the OTPs issued.
    mutating func advanceVerification(now: Date, options: OnboardingOptions) -> [String] {
        guard status == .verificationInProgress, identityFlag == .inProgress, verification != nil else { return [] }
        return verification!.advance(
            now: now, stepInterval: options.verificationStepInterval, presenceCheck: options.presenceCheck,
            makeOTP: options.makeOTP)
    }

    /// `identity/init`: needs the `VERIFICATION_PENDING` flag, swaps it for `VERIFICATION_IN_PROGRESS`.
    mutating func initVerification(now: Date) -> Answer {
        guard identityFlag == .pending else {
            return .error(500, "ERROR_GENERIC", "identity verification is already initialized")
        }
        guard verificationsStarted < Self.verificationLimit else {
            return .error(
                429, "IDENTITY_VERIFICATION_LIMIT_REACHED",
                "\(Self.verificationLimit) identity verifications were started for this process")
        }
        verificationsStarted += 1
        verification = IdentityVerification(now: now)
        identityFlag = .inProgress
        return .ok(nil)
    }

    /// `identity/cleanup`: the verification fails and the flag goes back to
    /// `VERIFICATION_PENDING`, unless the process has reached its limits.
    mutating func cleanupVerification() -> Answer {
        verification?.fail()
        errorScore += Score.reset
        if let limit = failOnLimits(endingVerification: true) { return limit }
        identityFlag = .pending
        return .ok(nil)
    }

    /// `consent/approve`: checked, not kept (the verification does not depend on it).
    func approveConsent(_ object: [String: Any]) -> Answer {
        guard object["approved"] is Bool, object["consentType"] as? String == "GDPR" else {
            return .error(400, "INVALID_REQUEST", "approved (a boolean) and consentType GDPR are required")
        }
        return .ok(nil)
    }

    /// `document/submit`: only in (DOCUMENT_UPLOAD, IN_PROGRESS). More than five spent
    /// documents reset the verification.
    mutating func submitDocuments(_ object: [String: Any]) -> Answer {
        guard var current = verification, identityFlag == .inProgress, current.canSubmit else {
            return .error(500, "ERROR_GENERIC", "documents are taken in DOCUMENT_UPLOAD / IN_PROGRESS only")
        }
        let upload: (documents: [IdentityVerification.Document], originals: [String])
        do {
            upload = try DocumentUpload.read(object, into: current) { UUID().uuidString.lowercased() }
        } catch {
            return .error(400, error.code, error.message)
        }
        current.submit(upload.documents, replacing: upload.originals)
        verification = current
        for document in upload.documents {
            errorScore +=
                document.status == "FAILED"
                ? Score.documentFailed : document.status == "REJECTED" ? Score.documentRejected : 0
        }
        if current.spentDocuments > Self.documentLimit {
            if let limit = reset() { return limit }
            return .error(
                429, "IDENTITY_VERIFICATION_LIMIT_REACHED",
                "more than \(Self.documentLimit) documents were replaced, rejected or failed; the verification starts again"
            )
        }
        return failOnLimits() ?? .ok(nil)
    }

    /// `document/status`: the verification's status and its documents (a replaced original
    /// is not listed), filtered by id when asked.
    func documentStatus(_ object: [String: Any]) -> Answer {
        guard let verification, identityFlag == .inProgress else {
            return .error(500, "ERROR_GENERIC", "no identity verification runs")
        }
        let filter = (object["filter"] as? [[String: Any]])?.compactMap { $0["documentId"] as? String }
        let documents = verification.listedDocuments.filter { filter?.contains($0.id) ?? true }.map {
            document -> [String: Any] in
            var item: [String: Any] = [
                "filename": document.filename, "id": document.id, "type": document.type, "side": document.side,
                "status": document.status,
            ]
            if !document.errors.isEmpty { item["errors"] = document.errors }
            return item
        }
        return .ok(["status": verification.status.rawValue, "documents": documents])
    }

    /// `presence-check/init`: five earlier checks fail the process.
    mutating func initPresenceCheck() -> Answer {
        guard var current = verification, identityFlag == .inProgress, current.phase == .presenceCheck,
            current.status == .notInitialized || current.status == .inProgress
        else { return .error(500, "ERROR_GENERIC", "no presence check is expected now") }
        guard presenceChecks < Self.presenceCheckLimit else {
            status = .failed
            return .error(
                429, "PRESENCE_CHECK_LIMIT_REACHED",
                "\(Self.presenceCheckLimit) presence checks were made for this process")
        }
        presenceChecks += 1
        _ = current.initPresenceCheck()
        verification = current
        return .ok(["sessionAttributes": ["sessionToken": UUID().uuidString.lowercased(), "provider": "sandbox"]])
    }

    mutating func submitPresenceCheck() -> Answer {
        guard identityFlag == .inProgress, verification?.submitPresenceCheck() == true else {
            return .error(500, "ERROR_GENERIC", "no presence check was started")
        }
        return .ok(nil)
    }

    mutating func resendVerificationOTP(_ code: String, now: Date) -> (Answer, sent: Bool) {
        guard identityFlag == .inProgress, verification != nil else {
            return (.error(500, "ERROR_GENERIC", "no OTP is expected now"), false)
        }
        switch verification!.resendOTP(code, now: now) {
        case .sent: return (.ok(nil), true)
        case .tooEarly:
            return (
                .error(400, "ONBOARDING_OTP_FAILED", "the OTP was sent less than \(Int(SentOTP.resendPeriod)) s ago"),
                false
            )
        case .wrongState: return (.error(500, "ERROR_GENERIC", "no OTP is expected now"), false)
        }
    }

    /// `otp/verify`: a right OTP finishes the process (or, after a failed presence check,
    /// goes back to it); the fifth wrong one resets the verification.
    mutating func verifyVerificationOTP(_ object: [String: Any], now: Date) -> Answer {
        guard let code = object["otpCode"] as? String else {
            return .error(400, "INVALID_REQUEST", "otpCode is required")
        }
        let result = identityFlag == .inProgress ? verification?.verifyOTP(code, now: now) ?? .notActive : .notActive
        var answer: (verified: Bool, expired: Bool, remaining: Int) = (false, false, 0)
        switch result {
        case .notActive: break
        case .expired: answer.expired = true
        case .wrong(let remaining): answer.remaining = remaining
        case .exhausted:
            errorScore += Score.otpFailed
            if let limit = reset() { return limit }
        case .presenceCheckFailed: answer = (true, false, SentOTP.attempts)
        case .verified:
            answer.verified = true
            _ = finishVerification()
        }
        return .ok([
            "processId": id, "onboardingStatus": status.rawValue, "verified": answer.verified,
            "expired": answer.expired, "remainingAttempts": answer.remaining,
        ])
    }

    /// The verification starts again from `VERIFICATION_PENDING`; nil unless that
    /// reached the process's limits.
    private mutating func reset() -> Answer? {
        verification?.fail()
        errorScore += Score.reset
        if let limit = failOnLimits(endingVerification: true) { return limit }
        identityFlag = .pending
        return nil
    }

    /// Fails the process when the error score is over its limit, or when a verification
    /// ends and five were started.
    private mutating func failOnLimits(endingVerification: Bool = false) -> Answer? {
        guard
            (endingVerification && verificationsStarted >= Self.verificationLimit) || errorScore > Self.errorScoreLimit
        else { return nil }
        status = .failed
        identityFlag = nil
        return .error(
            429, "ONBOARDING_PROCESS_LIMIT_REACHED",
            "the onboarding process reached its limits (verifications \(verificationsStarted), error score \(errorScore))"
        )
    }
}

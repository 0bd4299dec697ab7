import Foundation
import PowerAuth

/// The enrollment server's identity verification endpoints (`/api/identity/…`), each
/// authenticated as the real server's annotations say.
extension OnboardingServer {
    static let identityEndpoints: [String: IdentityAuthentication] = [
        "/api/identity/status": .token,
        "/api/identity/init": .signature,
        "/api/identity/cleanup": .signature,
        "/api/identity/consent/text": .token,
        "/api/identity/consent/approve": .signature,
        "/api/identity/document/init-sdk": .signedEncrypted,
        "/api/identity/document/submit": .tokenEncrypted,
        "/api/identity/document/status": .token,
        "/api/identity/presence-check/init": .signedEncrypted,
        "/api/identity/presence-check/submit": .signature,
        "/api/identity/otp/resend": .signature,
        "/api/identity/otp/verify": .encryptedOnly,
    ]

    static let consentText = """
        I agree that the issuer processes the images of my identity documents and my \
        presence check to verify my identity, as the GDPR allows (sandbox text).
        """

    /// Answers `/api/identity/…`; nil for any other path.
    func handleIdentity(_ request: RecordedRequest) -> SandboxReply? {
        guard let authentication = Self.identityEndpoints[request.path] else { return nil }
        guard request.method == "POST" else { return PowerAuthServer.error(405, "ERROR_GENERIC", "use POST") }
        let call: IdentityCall
        switch authenticate(request, authentication) {
        case .failure(let reply): return reply
        case .success(let authenticated): call = authenticated
        }
        if let answer = injected.withLock({ $0.removeValue(forKey: request.path) }) {
            return answer.encrypted
                ? call.ok(PowerAuthServer.object(Bytes.utf8(answer.body))?["responseObject"] as? [String: Any])
                : .respond(status: answer.status, headers: PowerAuthServer.jsonHeaders, body: answer.body)
        }
        guard let processID = processID(activationID: call.activationID) else {
            return PowerAuthServer.error(400, "ONBOARDING_FAILED", "no onboarding process made this device activation")
        }
        let now = options.clock()
        let outcome: (answer: Answer, otps: [String], flag: OnboardingProcess.IdentityFlag?, failed: Bool)? = updating(
            processID
        ) { process in
            // An expired process keeps its device activation, so that status can tell it so.
            _ = process.expire(now: now)
            var otps = process.advanceVerification(now: now, options: options)
            let answer: Answer
            if request.path == "/api/identity/status" {
                answer = .ok(identityStatus(process))
            } else if process.status != .verificationInProgress || call.object["processId"] as? String != process.id {
                answer = .error(
                    400, "ONBOARDING_FAILED",
                    "the onboarding process is \(process.status.rawValue), or the processId is not this device's")
            } else {
                answer = event(request.path, call.object, process: &process, now: now, otps: &otps)
            }
            return (answer, otps, process.identityFlag, process.status == .failed)
        }
        guard let outcome else {
            return PowerAuthServer.error(400, "ONBOARDING_FAILED", "onboarding process not found")
        }
        for code in outcome.otps { log?("identity otp process=\(processID) code=\(code)") }
        if case .error(429, _, _) = outcome.answer, outcome.failed {
            powerAuth.removeActivation(id: call.activationID)
        } else {
            powerAuth.setActivationFlags(call.activationID, outcome.flag.map { [$0.rawValue] } ?? [])
        }
        switch outcome.answer {
        case .ok(let object): return call.ok(object)
        case .error(let status, let code, let message): return PowerAuthServer.error(status, code, message)
        }
    }

    private func identityStatus(_ process: OnboardingProcess) -> [String: Any] {
        let pair = process.identityPair
        var answer: [String: Any] = [
            "processId": process.id,
            "identityVerificationStatus": pair.status,
            "config": SentOTP.config,
        ]
        if let phase = pair.phase { answer["identityVerificationPhase"] = phase }
        return answer
    }

    private func event(
        _ path: String, _ object: [String: Any], process: inout OnboardingProcess, now: Date, otps: inout [String]
    ) -> Answer {
        switch path {
        case "/api/identity/init":
            return process.initVerification(now: now)
        case "/api/identity/cleanup":
            return process.cleanupVerification()
        case "/api/identity/consent/text":
            guard object["consentType"] as? String == "GDPR" else {
                return .error(400, "INVALID_REQUEST", "consentType GDPR is required")
            }
            return .ok(["consentText": Self.consentText])
        case "/api/identity/consent/approve":
            return process.approveConsent(object)
        case "/api/identity/document/init-sdk":
            guard let challenge = (object["attributes"] as? [String: Any])?["sdk-init-token"] as? String else {
                return .error(400, "INVALID_REQUEST", "attributes.sdk-init-token is required")
            }
            let response = Bytes.base64String(Symmetric.sha256(Bytes.utf8("sandbox-sdk:" + challenge)))
            return .ok(["attributes": ["sdk-init-response": response]])
        case "/api/identity/document/submit":
            return process.submitDocuments(object)
        case "/api/identity/document/status":
            return process.documentStatus(object)
        case "/api/identity/presence-check/init":
            return process.initPresenceCheck()
        case "/api/identity/presence-check/submit":
            let answer = process.submitPresenceCheck()
            otps += process.advanceVerification(now: now, options: options)
            return answer
        case "/api/identity/otp/resend":
            let code = options.makeOTP()
            let (answer, sent) = process.resendVerificationOTP(code, now: now)
            if sent { otps.append(code) }
            return answer
        default:
            return process.verifyVerificationOTP(object, now: now)
        }
    }
}

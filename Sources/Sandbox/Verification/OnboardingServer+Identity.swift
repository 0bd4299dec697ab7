import Foundation
import PowerAuth

/// The enrollment server's identity verification endpoints (`/api/identity/…`), built
/// endpoint by endpoint; `status` so far, authenticated with the device's MAC token.
extension OnboardingServer {
    static let identityPaths: Set<String> = ["/api/identity/status"]

    /// Answers `/api/identity/…`; nil for any other path.
    func handleIdentity(_ request: RecordedRequest) -> SandboxReply? {
        guard Self.identityPaths.contains(request.path) else { return nil }
        guard request.method == "POST" else { return PowerAuthServer.error(405, "ERROR_GENERIC", "use POST") }
        switch powerAuth.verifyToken(request) {
        case .failure(let reply):
            return reply
        case .success(let activationID):
            guard PowerAuthServer.object(request.body)?["requestObject"] is [String: Any] else {
                return PowerAuthServer.error(500, "ERROR_GENERIC", "requestObject missing")
            }
            return identityStatus(activationID: activationID)
        }
    }

    /// `status`: (none, NOT_INITIALIZED) while the device still has `VERIFICATION_PENDING`
    /// or no verification runs; (COMPLETED, FAILED) once the process has failed (expiry).
    /// Null fields are left out, as the real server does.
    private func identityStatus(activationID: String) -> SandboxReply {
        let now = options.clock()
        guard let processID = processID(activationID: activationID),
              let failed = updating(processID, { process -> Bool in
                  // The device activation is kept, so that status can tell the device it failed.
                  _ = process.expire(now: now)
                  return process.status == .failed
              })
        else { return PowerAuthServer.error(400, "ONBOARDING_FAILED", "no onboarding process made this device activation") }
        var answer: [String: Any] = [
            "processId": processID,
            "identityVerificationStatus": "NOT_INITIALIZED",
            "config": ["otpResendPeriod": "PT30S", "otpResendPeriodSeconds": Int(IdentityVerification.resendPeriod)],
        ]
        if failed {
            answer["identityVerificationPhase"] = "COMPLETED"
            answer["identityVerificationStatus"] = "FAILED"
        }
        return PowerAuthServer.ok(answer)
    }
}

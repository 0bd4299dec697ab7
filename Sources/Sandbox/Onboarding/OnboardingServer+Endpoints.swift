import Foundation
import PowerAuth

extension OnboardingServer {
    /// Answers `/api/onboarding/…`; nil for any other path.
    func handle(_ request: RecordedRequest) -> SandboxReply? {
        guard Self.paths.contains(request.path) else { return nil }
        guard request.method == "POST" else { return PowerAuthServer.error(405, "ERROR_GENERIC", "use POST") }
        let encryption = PowerAuthHeaderFields.parse(request.header("X-PowerAuth-Encryption"))
        guard encryption?["version"] == PowerAuthVersion.current else {
            return PowerAuthServer.error(
                400, "INVALID_REQUEST", "X-PowerAuth-Encryption header with version=\"3.2\" required")
        }
        let identity = powerAuth.identity
        guard encryption?["application_key"] == identity.applicationKey else {
            return PowerAuthServer.error(401, "POWERAUTH_AUTH_FAIL", "unknown application key")
        }
        let decryptor = EciesDecryptor(
            privateKey: identity.masterPrivateKey,
            parameters: .application(
                sharedInfo1: EciesParameters.SharedInfo1.genericApplication, applicationKey: identity.applicationKey,
                applicationSecret: identity.applicationSecret))
        let plaintext: [UInt8]
        let response: EciesResponseEncryptor
        do {
            guard let payload = PowerAuthServer.payload(request.body) else {
                throw PowerAuthError.malformedPayload("body is not an encrypted payload")
            }
            try replayGuard.check(payload)
            (plaintext, response) = try decryptor.decryptRequest(payload)
        } catch {
            return PowerAuthServer.error(400, "INVALID_REQUEST", "the request does not decrypt")
        }
        func encrypted(_ status: Int, _ envelope: String) -> SandboxReply {
            guard let payload = try? response.encryptResponse(Bytes.utf8(envelope)),
                let body = try? JSONEncoder().encode(payload)
            else { return PowerAuthServer.error(500, "ERROR_GENERIC", "encryption failed") }
            return .respond(
                status: status, headers: PowerAuthServer.jsonHeaders, body: String(decoding: body, as: UTF8.self))
        }
        if let answer = injected.withLock({ $0.removeValue(forKey: request.path) }) {
            return answer.encrypted
                ? encrypted(answer.status, answer.body)
                : .respond(status: answer.status, headers: PowerAuthServer.jsonHeaders, body: answer.body)
        }
        guard let object = (PowerAuthServer.object(plaintext)?["requestObject"]) as? [String: Any] else {
            return PowerAuthServer.error(400, "INVALID_REQUEST", "requestObject missing")
        }
        switch answer(path: request.path, object) {
        case .ok(let responseObject):
            var envelope: [String: Any] = ["status": "OK"]
            if let responseObject { envelope["responseObject"] = responseObject }
            return encrypted(200, PowerAuthServer.json(envelope))
        case .error(let status, let code, let message):
            return PowerAuthServer.error(status, code, message)
        }
    }

    enum Answer {
        case ok([String: Any]?)
        case error(Int, String, String)
    }

    private func answer(path: String, _ object: [String: Any]) -> Answer {
        if path == "/api/onboarding/start" { return start(object["identification"]) }
        guard let id = object["processId"] as? String, !id.isEmpty else {
            return .error(400, "INVALID_REQUEST", "processId missing")
        }
        let now = options.clock()
        let outcome: (Answer, remove: String?)? = updating(id) { process in
            let expired = process.expire(now: now)
            switch path {
            case "/api/onboarding/status":
                return (.ok(["processId": id, "onboardingStatus": process.status.rawValue]), expired)
            case "/api/onboarding/cleanup":
                return (.ok(nil), process.cancel() ?? expired)
            case "/api/onboarding/otp/resend":
                let code = options.makeOTP()
                switch process.resend(otp: code, now: now) {
                case .sent:
                    deliver(code, process: id)
                    return (.ok(nil), expired)
                case .tooEarly:
                    return (
                        .error(
                            400, "ONBOARDING_OTP_FAILED",
                            "the OTP was sent less than \(Int(SentOTP.resendPeriod)) s ago"), expired
                    )
                case .notActive:
                    return (.error(400, "ONBOARDING_FAILED", "the process is \(process.status.rawValue)"), expired)
                }
            default:
                switch object["otpType"] as? String {
                case "ACTIVATION":
                    guard process.status == .activationInProgress else {
                        return (.error(400, "ONBOARDING_FAILED", "the process is \(process.status.rawValue)"), expired)
                    }
                    return (.ok(["otpCode": process.otp.code]), expired)
                case "USER_VERIFICATION":
                    guard process.status == .verificationInProgress, let otp = process.verification?.otp else {
                        return (.error(400, "ONBOARDING_FAILED", "no identity verification OTP was sent"), expired)
                    }
                    return (.ok(["otpCode": otp.code]), expired)
                default:
                    return (.error(400, "INVALID_REQUEST", "otpType must be ACTIVATION or USER_VERIFICATION"), expired)
                }
            }
        }
        guard let outcome else { return .error(400, "ONBOARDING_FAILED", "onboarding process not found") }
        removeActivation(outcome.remove)
        return outcome.0
    }

    /// Starts a process, or resumes the one in progress for the same identification;
    /// refuses a sixth process for it within 24 hours.
    private func start(_ identification: Any?) -> Answer {
        guard let identification = identification as? [String: Any], !identification.isEmpty else {
            return .error(400, "INVALID_REQUEST", "identification must be a non-empty object")
        }
        let key = PowerAuthServer.json(identification)
        let now = options.clock()
        let started: (process: OnboardingProcess, isNew: Bool)? = processes.withLock { table in
            for id in table.keys where table[id]?.identification == key {
                if let expiredActivation = table[id]?.expire(now: now) {
                    powerAuth.removeActivation(id: expiredActivation)
                }
            }
            if let running = table.values.first(where: {
                $0.identification == key && $0.status == .activationInProgress
            }) {
                return (running, false)
            }
            let today = table.values.filter {
                $0.identification == key && now.timeIntervalSince($0.createdAt) < 24 * 60 * 60
            }
            guard today.count < options.processesPerDay else { return nil }
            let process = OnboardingProcess(
                id: UUID().uuidString.lowercased(), identification: key, otp: options.makeOTP(), now: now)
            table[process.id] = process
            return (process, true)
        }
        guard let started else {
            return .error(
                429, "TOO_MANY_ONBOARDING_PROCESSES", "too many onboarding processes for this identification today")
        }
        if started.isNew { deliver(started.process.otp.code, process: started.process.id) }
        log?("onboarding \(started.isNew ? "started" : "resumed") process=\(started.process.id)")
        return .ok([
            "processId": started.process.id, "onboardingStatus": started.process.status.rawValue,
            "config": SentOTP.config,
        ])
    }

    /// What a test SMS gateway would send.
    private func deliver(_ otp: String, process id: String) {
        log?("onboarding otp process=\(id) code=\(otp)")
    }
}

import Foundation
import PowerAuth
import Synchronization

/// How the simulated onboarding server behaves; tests inject the clock and the OTPs.
public struct OnboardingOptions: Sendable {
    /// The server's notion of now (process expiry, OTP life, resend period).
    public var clock: @Sendable () -> Date
    /// Finish the process at activation, without the VERIFICATION_PENDING flag (for demos).
    public var skipVerification: Bool
    /// Makes each OTP; by default 8 random digits.
    public var makeOTP: @Sendable () -> String
    /// Processes per identification per 24 hours.
    public var processesPerDay: Int
    /// Seconds between identity verification's background steps; 0 runs them at once.
    public var verificationStepInterval: TimeInterval
    /// Whether identity verification includes a presence check.
    public var presenceCheck: Bool

    public init(
        clock: @escaping @Sendable () -> Date = { Date() }, skipVerification: Bool = false,
        makeOTP: @escaping @Sendable () -> String = OnboardingOptions.randomOTP, processesPerDay: Int = 5,
        verificationStepInterval: TimeInterval = 0, presenceCheck: Bool = true
    ) {
        self.verificationStepInterval = verificationStepInterval
        self.presenceCheck = presenceCheck
        self.clock = clock
        self.skipVerification = skipVerification
        self.makeOTP = makeOTP
        self.processesPerDay = processesPerDay
    }

    public static let randomOTP: @Sendable () -> String = {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%08d", Int.random(in: 0..<100_000_000, using: &generator))
    }
}

/// The onboarding server's activation process (`/api/onboarding/…`) as the sandbox
/// simulates it, on the server side of PowerAuth: requests and OK answers are ECIES
/// in application scope, errors come back in the clear. The OTP is "delivered" on the
/// sandbox log and through the demo `otp/detail` endpoint, as a test SMS gateway would.
public final class OnboardingServer: Sendable {
    let powerAuth: PowerAuthServer
    let options: OnboardingOptions
    let log: (@Sendable (String) -> Void)?
    let processes = Mutex<[String: OnboardingProcess]>([:])
    let injected = Mutex<[String: InjectedAnswer]>([:])
    let replayGuard = EciesReplayGuard()

    struct InjectedAnswer {
        var status: Int
        var body: String
        var encrypted: Bool
    }

    /// Serves the activation process and checks `credentialsType: ONBOARDING` device
    /// activations of `powerAuth` against its OTPs.
    public init(
        powerAuth: PowerAuthServer, options: OnboardingOptions = OnboardingOptions(),
        log: (@Sendable (String) -> Void)? = nil
    ) {
        self.powerAuth = powerAuth
        self.options = options
        self.log = log
        powerAuth.route(credentialsType: "ONBOARDING") { [weak self] attributes, activationId in
            guard let self, let id = attributes["processId"], let otp = attributes["otpCode"] else {
                return .reject(message: "POWER_AUTH_ACTIVATION_INVALID", remainingAttempts: nil)
            }
            let now = self.options.clock()
            let skip = self.options.skipVerification
            let decision: IdentityDecision? = self.updating(id) { process in
                self.removeActivation(process.expire(now: now))
                return process.verify(otp: otp, activationID: activationId, now: now, skipVerification: skip)
            }
            return decision ?? .reject(message: "POWER_AUTH_ACTIVATION_INVALID", remainingAttempts: nil)
        }
    }

    static let paths: Set<String> = [
        "/api/onboarding/start", "/api/onboarding/status", "/api/onboarding/otp/resend",
        "/api/onboarding/cleanup", "/api/onboarding/otp/detail",
    ]

    // MARK: Inspection and switches (tests, demo)

    /// The wire status of a process (`ACTIVATION_IN_PROGRESS`, …), after expiry.
    public func processStatus(_ id: String) -> String? {
        let now = options.clock()
        return updating(id) { process in
            removeActivation(process.expire(now: now))
            return process.status.rawValue
        }
    }

    /// The current OTP of a process, as the SMS would carry it.
    public func otp(_ id: String) -> String? {
        processes.withLock { $0[id]?.otp.code }
    }

    /// The identity verification OTP of a process, as the SMS would carry it.
    public func verificationOTP(_ id: String) -> String? {
        processes.withLock { $0[id]?.verification?.otp?.code }
    }

    /// The file names of a process's verification documents, replaced ones included.
    public func documentFilenames(_ id: String) -> [String] {
        processes.withLock { $0[id]?.verification?.documents.map(\.filename) ?? [] }
    }

    /// What `identity/status` would report: `PHASE/STATUS` (`-/NOT_INITIALIZED` without a phase).
    public func identityPair(_ id: String) -> String? {
        processes.withLock { table in table[id].map { "\($0.identityPair.phase ?? "-")/\($0.identityPair.status)" } }
    }

    public func errorScore(_ id: String) -> Int? {
        processes.withLock { $0[id]?.errorScore }
    }

    /// The process that made this device activation.
    public func processID(activationID: String) -> String? {
        processes.withLock { table in table.values.first { $0.activationID == activationID }?.id }
    }

    public var processCount: Int { processes.withLock { $0.count } }

    /// Ends identity verification well: the process finishes and the device loses its
    /// verification flags.
    public func finishVerification(processID: String) {
        let activationID: String?? = updating(processID) { process in
            process.finishVerification() ? process.activationID : nil
        }
        if let id = activationID ?? nil { powerAuth.setActivationFlags(id, []) }
    }

    /// The next answer to `path` is this one instead (once): `body` is the envelope,
    /// encrypted like an OK answer when `encrypted`. For malformed-answer tests.
    public func injectAnswer(path: String, status: Int = 200, body: String, encrypted: Bool = true) {
        injected.withLock { $0[path] = InjectedAnswer(status: status, body: body, encrypted: encrypted) }
    }

    func updating<T>(_ id: String, _ change: (inout OnboardingProcess) -> T) -> T? {
        processes.withLock { table in
            guard var process = table[id] else { return nil }
            let result = change(&process)
            table[id] = process
            return result
        }
    }

    func removeActivation(_ id: String?) {
        if let id { powerAuth.removeActivation(id: id) }
    }
}

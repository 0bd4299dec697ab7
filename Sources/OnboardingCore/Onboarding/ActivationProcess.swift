import Foundation
import PowerAuth
import WalletModel

/// The user-activation process of the onboarding contract for one instance: start
/// with any credentials, receive an OTP, activate this installation with it; check,
/// resume, cancel and resend in between. The only persisted state is the process id.
public struct ActivationProcess: Sendable {
    let api: OnboardingAPI
    public let powerAuth: PowerAuthClient
    let processes: OnboardingProcessStore

    var instanceID: String { powerAuth.settings.instanceID }

    /// - Parameters:
    ///   - api: the onboarding server's `/api/onboarding/…` endpoints.
    ///   - powerAuth: the device activation that `activate` creates.
    ///   - canRestoreSession: false drops a process stored by an earlier run.
    public init(
        api: OnboardingAPI, powerAuth: PowerAuthClient, store: any OnboardingProcessRecords,
        canRestoreSession: Bool = true
    ) async throws {
        self.api = api
        self.powerAuth = powerAuth
        processes = OnboardingProcessStore(records: store)
        if !canRestoreSession { try await processes.clear(powerAuth.settings.instanceID) }
    }

    /// A process id is stored. It may have ended on the server meanwhile; ``status()`` asks.
    public func hasActiveProcess() async throws -> Bool {
        try await processes.processID(instanceID) != nil
    }

    /// What `start` answered.
    public struct Started: Sendable, Equatable {
        public var processID: String
        /// Nil when the server sent a value this client does not know.
        public var status: ActivationProcessStatus?
        /// How long to wait before ``resendOTP()``.
        public var otpResendPeriodSeconds: Int?
    }

    /// Starts (or, for the same identification, resumes) a process and stores its id.
    /// - Throws: ``OnboardingError`` `wdo_activation_inProgress` when one is stored.
    public func start(credentials: some Encodable) async throws -> Started {
        guard try await processes.processID(instanceID) == nil else {
            throw OnboardingError(.activationInProgress, detail: "a process is stored")
        }
        try await verifyCanActivate()
        let identification: [String: Any]
        do {
            identification = try PowerAuthClient.object(Array(JSONEncoder().encode(credentials)), "the credentials")
        } catch {
            throw OnboardingError(.networkBadServerResponse, detail: "the credentials must encode to a JSON object")
        }
        let answer = try await api.start(identification: identification)
        guard let processID = answer["processId"] as? String, !processID.isEmpty else {
            throw OnboardingError(
                .networkBadServerResponse, httpStatus: 200, detail: "the start answer has no processId")
        }
        guard try await processes.insert(processID, instanceID: instanceID) else {
            throw OnboardingError(.activationInProgress, detail: "another process was stored meanwhile")
        }
        let config = answer["config"] as? [String: Any]
        return Started(
            processID: processID,
            status: (answer["onboardingStatus"] as? String).flatMap(ActivationProcessStatus.init(wire:)),
            otpResendPeriodSeconds: config?["otpResendPeriodSeconds"] as? Int
        )
    }

    /// Asks the server where the stored process stands.
    public func status() async throws -> (processID: String, status: ActivationProcessStatus) {
        let processID = try await requireProcess()
        try await verifyCanActivate()
        let answer = try await api.status(processID: processID)
        guard let wire = answer["onboardingStatus"] as? String else {
            throw OnboardingError(
                .networkBadServerResponse, httpStatus: 200, detail: "the status answer has no onboardingStatus")
        }
        guard let status = ActivationProcessStatus(wire: wire) else {
            throw OnboardingError(
                .networkBadServerResponse, httpStatus: 200, detail: "unknown onboardingStatus \"\(wire.prefix(40))\"")
        }
        return (processID, status)
    }

    /// Activates this installation with the OTP: a PowerAuth custom activation with the
    /// identity attributes `processId`, `otpCode` and `credentialsType: ONBOARDING`.
    ///
    /// On success the stored process id is cleared. On failure it is kept only when the
    /// server allows another OTP (`remainingAttempts` > 0) or was not reached.
    /// - Parameters:
    ///   - activationName: defaults to the host name.
    ///   - pin: protects the knowledge factor of the new activation.
    public func activate(otp: String, activationName: String? = nil, pin: [UInt8]) async throws -> DeviceActivation {
        let processID = try await requireProcess()
        try await verifyCanActivate()
        let attributes = ["processId": processID, "otpCode": otp, "credentialsType": "ONBOARDING"]
        do {
            let activation = try await powerAuth.activate(
                name: activationName ?? Self.hostName, identityAttributes: attributes, pin: pin)
            try await processes.clear(instanceID, processID: processID)
            return activation
        } catch let error as PowerAuthClientError {
            if case .invalidPIN = error { throw error }
            let failure = Self.onboardingError(error)
            if !(failure.allowsOTPRetry || failure.isOffline) {
                try await processes.clear(instanceID, processID: processID)
            }
            throw failure
        }
    }

    /// Cancels the process on the server (cleanup: it fails the process and removes its
    /// device activation).
    /// - Parameter force: clear the local process even when the server call fails.
    /// - Returns: whether the server confirmed; false only with `force` after a failed call.
    @discardableResult
    public func cancel(force: Bool = true) async throws -> Bool {
        let processID = try await requireProcess()
        try await verifyCanActivate()
        do {
            try await api.cleanup(processID: processID)
        } catch {
            guard force else { throw error }
            try await processes.clear(instanceID, processID: processID)
            return false
        }
        try await processes.clear(instanceID, processID: processID)
        return true
    }

    /// Asks the server to send a new OTP (refused within the resend period).
    public func resendOTP() async throws {
        let processID = try await requireProcess()
        try await verifyCanActivate()
        try await api.resendOTP(processID: processID)
    }

    /// The current activation OTP, from the `otp/detail` endpoint of demo servers.
    public func demoOTP() async throws -> String {
        let processID = try await requireProcess()
        let answer = try await api.otpDetail(processID: processID)
        guard let otp = answer["otpCode"] as? String, !otp.isEmpty else {
            throw OnboardingError(
                .networkBadServerResponse, httpStatus: 200, detail: "the otp/detail answer has no otpCode")
        }
        return otp
    }

    // MARK: Rules

    private func requireProcess() async throws -> String {
        guard let processID = try await processes.processID(instanceID) else {
            let activated = try await powerAuth.activation() != nil
            throw OnboardingError.notRunning(activated: activated)
        }
        return processID
    }

    /// An instance with a device activation cannot run a process: its stored id is dropped.
    private func verifyCanActivate() async throws {
        guard try await powerAuth.activation() != nil else { return }
        try await processes.clear(instanceID)
        throw OnboardingError(.activationCannotActivate, detail: "the instance is already activated")
    }

    static func onboardingError(_ error: PowerAuthClientError) -> OnboardingError {
        switch error {
        case let .rejected(message, remaining):
            return OnboardingError(
                .networkGeneric, httpStatus: 400, serverCode: "ERR_ACTIVATION", serverMessage: message,
                remainingAttempts: remaining, detail: "the activation OTP was refused")
        case .unreachable(let transport):
            return OnboardingError(transport)
        case .alreadyActivated:
            return OnboardingError(.activationCannotActivate, detail: "the instance is already activated")
        case let .serverError(status, message):
            return OnboardingError(
                .networkErrorStatusCode, httpStatus: status, serverMessage: message, detail: "HTTP \(status)")
        case .authenticationFailed(let message):
            return OnboardingError(
                .networkGeneric, httpStatus: 401, serverCode: "POWERAUTH_AUTH_FAIL", serverMessage: message,
                detail: "the activation was refused")
        default:
            return OnboardingError(.networkBadServerResponse, detail: error.message)
        }
    }

    static var hostName: String {
        ProcessIdentity.hostName ?? "tokenctl"
    }
}

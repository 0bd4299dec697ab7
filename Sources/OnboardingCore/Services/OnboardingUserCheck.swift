import ErrorCodes
import HTTPTransport
import Logging
import WalletModel

/// "Is the user activation finished?", asked live: this instance has a device
/// activation, the PowerAuth server reports it ACTIVE, and its `activationFlags` carry
/// no verification flag. Nothing local decides it but the absence of an activation,
/// which is answered without the server (or its configuration).
public struct OnboardingUserCheck: UserActivationCheck {
    let settings: OnboardingSettings
    let environment: [String: String]
    let logger: Logger
    let transports: TransportFactory

    /// The flags that mean identity verification has not ended.
    static let verificationFlags: Set<String> = ["VERIFICATION_PENDING", "VERIFICATION_IN_PROGRESS"]

    public init(
        settings: OnboardingSettings, environment: [String: String], logger: Logger,
        transports: TransportFactory = .curl
    ) {
        self.settings = settings
        self.environment = environment
        self.logger = logger
        self.transports = transports
    }

    public func status(store: any OnboardingRecords) async throws -> UserActivationStatus {
        let instance = settings.instanceID
        guard try await DeviceActivationStore(records: store).load(instance) != nil else {
            return try await OnboardingProcessStore(records: store).processID(instance) != nil
                ? .notFinished(reason: "an onboarding process is running", nextStep: .finishOnboarding)
                : .notFinished(reason: "this installation has no user activation", nextStep: .onboard)
        }
        let device = DeviceService(
            settings: settings, database: .shared(store), environment: environment, logger: logger,
            transports: transports)
        let status: PowerAuthClient.Status
        do {
            status = try await device.status()
        } catch let error as PowerAuthClientError {
            switch error {
            case .unreachable(let transport) where transport.kind == .tlsFiles:
                throw error
            case .unreachable, .serverError:
                throw UserCheckError(
                    code: .onboardingUnreachable, message: "the onboarding server could not be asked: \(error.message)")
            default:
                throw UserCheckError(
                    code: .onboardingProtocol,
                    message: "the onboarding server's answer about the user activation is unusable: \(error.message)")
            }
        }
        guard status.state == "ACTIVE" else {
            return .notFinished(
                reason: "the device activation is \(status.state) on the server",
                nextStep: .removeDeviceLocallyAndOnboard)
        }
        let pending = status.flags.filter(Self.verificationFlags.contains)
        guard pending.isEmpty else {
            guard pending.contains("VERIFICATION_IN_PROGRESS"), let state = await verificationState(store: store) else {
                return .notFinished(
                    reason: "identity verification has not ended (\(pending.joined(separator: ", ")))",
                    nextStep: .finishVerification)
            }
            return Self.refusal(verification: state)
        }
        return .finished
    }

    /// The refusal for a started verification, by its state: a failed verification is left
    /// by a restart (the server allows a new one within the process's limits), an end state
    /// (rejected too) only by cancelling the process and onboarding again; any other state
    /// is finished by going on.
    static func refusal(verification state: VerificationState) -> UserActivationStatus {
        switch state {
        case .endstate(.rejected):
            .notFinished(
                reason: "identity verification was rejected, which ends the onboarding process",
                nextStep: .cancelVerificationAndOnboard)
        case .endstate(let reason):
            .notFinished(
                reason: "identity verification ended without success (\(reason.rawValue))",
                nextStep: .cancelVerificationAndOnboard)
        case .failed:
            .notFinished(reason: "identity verification failed", nextStep: .restartVerification)
        default:
            .notFinished(
                reason: "identity verification has not ended (state \(state.name))", nextStep: .finishVerification)
        }
    }

    /// The verification's state, asked only when the gate refuses (to name the way on);
    /// nil when it cannot be asked.
    private func verificationState(store: any OnboardingRecords) async -> VerificationState? {
        let service = VerificationService(
            settings: settings, database: .shared(store), environment: environment, logger: logger,
            transports: transports)
        do {
            return try await service.withProcess { try await $0.status() }
        } catch {
            logger.debug("the verification state could not be asked", metadata: ["error": "\(error)"])
            return nil
        }
    }
}

/// Why the user check could not be answered.
public struct UserCheckError: CodedError, Equatable {
    public let code: ErrorCode
    public let message: String
}

import OnboardingCore

/// "Is the user activation finished?", asked live: this instance has a device
/// activation, the PowerAuth server reports it ACTIVE, and its `activationFlags` carry
/// no verification flag. Nothing local decides it but the absence of an activation.
public struct OnboardingUserCheck: UserActivationCheck {
    let service: OnboardingService

    /// The flags that mean identity verification has not ended.
    static let verificationFlags: Set<String> = ["VERIFICATION_PENDING", "VERIFICATION_IN_PROGRESS"]

    public init(service: OnboardingService) {
        self.service = service
    }

    public func status() async throws -> UserActivationStatus {
        do {
            return try await service.withProcess { process in
                guard try process.powerAuth.activation() != nil else {
                    return .notFinished(nextStep: try process.hasActiveProcess()
                        ? "an onboarding process is running: finish it with `tokenctl onboarding activate --otp CODE`"
                        : "this installation has no user activation: run `tokenctl onboarding start --credentials JSON`, then `tokenctl onboarding activate --otp CODE`")
                }
                let status = try await process.powerAuth.status()
                guard status.state == "ACTIVE" else {
                    return .notFinished(nextStep: "the device activation is \(status.state) on the server: `tokenctl device remove --local`, then onboard again")
                }
                let pending = status.flags.filter(Self.verificationFlags.contains)
                guard pending.isEmpty else {
                    return .notFinished(nextStep: "identity verification has not ended (\(pending.joined(separator: ", "))): finish it, then try again")
                }
                return .finished
            }
        } catch let error as PowerAuthClientError {
            switch error {
            case .unreachable, .serverError:
                throw ActivationError(code: "onboarding.unreachable", message: "the onboarding server could not be asked: \(error.message)")
            default:
                throw ActivationError(code: "onboarding.protocol", message: "the onboarding server's answer about the user activation is unusable: \(error.message)")
            }
        }
    }
}

import Logging
import OnboardingCore
import Storage

extension Settings {
    /// The onboarding commands on these settings; the database is opened per call.
    public func onboardingService(environment: [String: String], logger: Logger) -> OnboardingService {
        OnboardingService(settings: onboarding, database: .options(database), environment: environment, logger: logger)
    }

    /// The identity verification commands on these settings; the database is opened per call.
    public func verificationService(environment: [String: String], logger: Logger) -> VerificationService {
        VerificationService(settings: onboarding, database: .options(database), environment: environment, logger: logger)
    }

    /// The device-activation commands on these settings; the database is opened per call.
    public func deviceService(environment: [String: String], logger: Logger) -> DeviceService {
        DeviceService(settings: onboarding, database: .options(database), environment: environment, logger: logger)
    }

    /// The PIN login commands on these settings; the database is opened per call.
    public func loginService(logger: Logger) -> LoginService {
        LoginService(settings: login, instanceID: onboarding.instanceID, database: .options(database), logger: logger)
    }
}

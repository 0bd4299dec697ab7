import Logging
import OnboardingCore
import PostgresStorage
import Storage

extension Settings {
    /// Where the onboarding core's state is: PostgreSQL when `database.url` is set, else the
    /// SQLite file; opened per call.
    var stateSource: StoreSource {
        if let postgres {
            return .opening { logger in try PostgresStore(options: postgres, logger: logger) }
        }
        return .options(database)
    }

    /// The onboarding commands on these settings; the database is opened per call.
    public func onboardingService(environment: [String: String], logger: Logger) -> OnboardingService {
        OnboardingService(settings: onboarding, database: stateSource, environment: environment, logger: logger)
    }

    /// The identity verification commands on these settings; the database is opened per call.
    public func verificationService(environment: [String: String], logger: Logger) -> VerificationService {
        VerificationService(settings: onboarding, database: stateSource, environment: environment, logger: logger)
    }

    /// The device-activation commands on these settings; the database is opened per call.
    public func deviceService(environment: [String: String], logger: Logger) -> DeviceService {
        DeviceService(settings: onboarding, database: stateSource, environment: environment, logger: logger)
    }

    /// The PIN login commands on these settings; the database is opened per call.
    public func loginService(logger: Logger) -> LoginService {
        LoginService(settings: login, instanceID: onboarding.instanceID, database: stateSource, logger: logger)
    }
}

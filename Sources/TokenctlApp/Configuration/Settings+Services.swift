import HTTPTransport
import Logging
import OnboardingCore
import PostgresStorage
import Storage
import TokenActivation
import TokenctlConfiguration
import WalletModel

extension Settings {
    /// The database these settings name: PostgreSQL when `database.url` is set, else the
    /// SQLite file. The one place that chooses between the drivers.
    public var store: any StoreDriver {
        if let postgres { return PostgresDriver(options: postgres) }
        return SQLiteDriver(options: database)
    }

    /// What the activation pipeline reads of these settings.
    public var activation: ActivationSettings {
        ActivationSettings(deeplinkFormats: deeplinkFormats, tmp: tmp, onboarding: onboarding)
    }

    /// The onboarding commands on these settings; the database is opened per call.
    public func onboardingService(environment: [String: String], logger: Logger) -> OnboardingService {
        OnboardingService(settings: onboarding, database: store.stateSource, environment: environment, logger: logger)
    }

    /// The identity verification commands on these settings; the database is opened per call.
    public func verificationService(environment: [String: String], logger: Logger) -> VerificationService {
        VerificationService(settings: onboarding, database: store.stateSource, environment: environment, logger: logger)
    }

    /// The device-activation commands on these settings; the database is opened per call.
    public func deviceService(environment: [String: String], logger: Logger) -> DeviceService {
        DeviceService(settings: onboarding, database: store.stateSource, environment: environment, logger: logger)
    }

    /// The PIN login commands on these settings; the database is opened per call.
    public func loginService(logger: Logger) -> LoginService {
        LoginService(settings: login, instanceID: onboarding.instanceID, database: store.stateSource, logger: logger)
    }
}

extension Activator {
    /// The activation pipeline on these settings' database and servers.
    /// - Parameters:
    ///   - transports: TMP's.
    ///   - onboardingTransports: the user gates' (the onboarding and PowerAuth servers); TMP's by default.
    ///   - userCheck: by default ``OnboardingUserCheck`` on the configured onboarding server.
    public init(
        settings: Settings, environment: [String: String], transports: TransportFactory = .curl, onboardingTransports: TransportFactory? = nil,
        userCheck: (any UserActivationCheck)? = nil,
        logger: Logger = Logger(label: "tokenctl.activation"), clock: @escaping @Sendable () -> Timestamp = Timestamp.now,
        sleep: @escaping @Sendable (Duration) -> Void = Activator.pause
    ) {
        self.init(
            settings: settings.activation, store: settings.store, environment: environment, transports: transports,
            userCheck: userCheck
                ?? OnboardingUserCheck(settings: settings.onboarding, environment: environment, logger: logger, transports: onboardingTransports ?? transports),
            logger: logger, clock: clock, sleep: sleep
        )
    }
}

extension Wallet {
    /// Wallet administration on these settings' database.
    public init(settings: Settings, logger: Logger = Logger(label: "tokenctl.wallet")) {
        self.init(store: settings.store, logger: logger)
    }
}

extension Audit {
    /// The audit of these settings' database.
    public init(settings: Settings, logger: Logger = Logger(label: "tokenctl.audit")) {
        self.init(store: settings.store, logger: logger)
    }
}

import ErrorCodes
import Foundation
import HTTPTransport
import Logging
import OnboardingCore
import PostgresStorage
import Storage
import TokenActivation
import TokenctlConfiguration
import TransparencyLog
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
        settings: Settings, environment: [String: String], transports: TransportFactory = .curl,
        onboardingTransports: TransportFactory? = nil,
        userCheck: (any UserActivationCheck)? = nil,
        logger: Logger = Logger(label: "tokenctl.activation"),
        clock: @escaping @Sendable () -> Timestamp = Timestamp.now,
        sleep: @escaping @Sendable (Duration) async -> Void = Activator.pause
    ) {
        self.init(
            settings: settings.activation, store: settings.store, environment: environment, transports: transports,
            userCheck: userCheck
                ?? OnboardingUserCheck(
                    settings: settings.onboarding, environment: environment, logger: logger,
                    transports: onboardingTransports ?? transports),
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

extension TransparencyLog {
    /// The transparency log of these settings' database.
    public init(settings: Settings, logger: Logger = Logger(label: "tokenctl.audit")) {
        self.init(store: settings.store, logger: logger)
    }
}

extension AuditSettings {
    /// The log's name and the key that signs its checkpoints, read from
    /// `audit.signing-key-file` (owner-only, never printed); `audit.notConfigured` (78)
    /// names what is missing.
    public func signer() throws -> (origin: String, signer: NoteSigner) {
        guard let origin else {
            throw AuditError(
                code: .auditNotConfigured,
                message:
                    "audit.origin is not set: name the log (such as bank.example/tokenctl-audit) in the configuration, then make its key with tokenctl audit key generate --origin NAME --out FILE"
            )
        }
        guard let file = signingKeyFile else {
            throw AuditError(
                code: .auditNotConfigured,
                message:
                    "audit.signing-key-file is not set: make a key with tokenctl audit key generate --origin \(origin) --out FILE and name the file there"
            )
        }
        let read: String?
        do {
            read = try SecretFile.secret(file: file, key: Keys.signingKeyFile, variable: "", environment: [:])
        } catch {
            guard !FileManager.default.fileExists(atPath: file) else { throw error }
            throw error.advising(
                "A lost signing key cannot be made again: restore the file from its backup, or start a new log (a new origin, tokenctl audit key generate; operations.md, \"Rotating the log's key\")"
            )
        }
        guard let text = read else {
            throw ConfigurationError.secretMissing("\(Keys.signingKeyFile) names \(file), which is empty")
        }
        let signer: NoteSigner
        do {
            signer = try NoteSigner(signerKey: text)
        } catch {
            throw ConfigurationError.fileInvalid(
                key: Keys.signingKeyFile, path: file,
                expected: "a signed-note private key (PRIVATE+KEY+NAME+HASH+KEY, as tokenctl audit key generate writes)"
            )
        }
        guard signer.name == origin else {
            throw ConfigurationError.fileInvalid(
                key: Keys.signingKeyFile, path: file,
                expected:
                    "a key of audit.origin's log: the key in it is \(signer.name)'s, not audit.origin's (\(origin)), and a checkpoint's signature names its log"
            )
        }
        return (origin, signer)
    }
}

extension AuditSettings {
    /// Publishes checkpoints to `audit.witnesses` over libcurl, each request within
    /// `audit.witness-timeout-ms` (connecting within 3 s of it); nil when no witness is
    /// configured.
    public func witnessPublisher(
        transports: TransportFactory = .curl,
        onRequest: @escaping @Sendable (WitnessPublisher.RequestResult) -> Void = { _ in }
    ) throws -> WitnessPublisher? {
        guard !witnesses.isEmpty else { return nil }
        let list = try witnesses.map {
            Witness(url: $0.url, verifier: try Cosignature.Verifier(verifierKey: $0.verifierKey))
        }
        let options = CurlTransportOptions(
            connectTimeoutMilliseconds: min(3_000, witnessTimeoutMilliseconds),
            timeoutMilliseconds: witnessTimeoutMilliseconds)
        return try WitnessPublisher(
            witnesses: list, transport: { try transports.transport(options) }, onRequest: onRequest)
    }
}

extension Audit {
    /// The audit of these settings' database.
    public init(settings: Settings, logger: Logger = Logger(label: "tokenctl.audit")) {
        self.init(store: settings.store, logger: logger)
    }
}

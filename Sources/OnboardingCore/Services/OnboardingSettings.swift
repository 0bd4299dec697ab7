import HTTPTransport

/// The onboarding core's configuration (`onboarding.*`), built by the configuration
/// loader. The application secret is read from its file or
/// `TOKENCTL_ONBOARDING_POWERAUTH_APPLICATION_SECRET` when a command needs it, never
/// from the configuration file itself.
public struct OnboardingSettings: Sendable, Equatable {
    /// The PowerAuth parameters as configured.
    public struct PowerAuth: Sendable, Equatable {
        /// Where `/pa/v3/…` lives; nil means the onboarding base URL.
        public var baseURL: String?
        public var applicationKey: String?
        public var applicationSecretFile: String?
        /// Base64 of the uncompressed P-256 master server public key.
        public var masterServerPublicKey: String?

        public init(
            baseURL: String? = nil, applicationKey: String? = nil, applicationSecretFile: String? = nil,
            masterServerPublicKey: String? = nil
        ) {
            self.baseURL = baseURL
            self.applicationKey = applicationKey
            self.applicationSecretFile = applicationSecretFile
            self.masterServerPublicKey = masterServerPublicKey
        }
    }

    /// `onboarding.base-url`, `onboarding.connect-timeout-ms`, `onboarding.timeout-ms`,
    /// `onboarding.tls.*`; the PowerAuth server is reached with the same timeouts and TLS files.
    public var connection: ConnectionSettings
    public var instanceID: String
    public var requiresFinishedUserActivation: Bool
    /// `onboarding.require-pin-login-within-seconds`: token activation needs a PIN login this
    /// recent; nil (the default) turns the gate off.
    public var pinLoginWithinSeconds: Int?
    public var powerAuth: PowerAuth

    public init(
        connection: ConnectionSettings, instanceID: String, requiresFinishedUserActivation: Bool,
        pinLoginWithinSeconds: Int? = nil, powerAuth: PowerAuth = PowerAuth()
    ) {
        self.connection = connection
        self.instanceID = instanceID
        self.requiresFinishedUserActivation = requiresFinishedUserActivation
        self.pinLoginWithinSeconds = pinLoginWithinSeconds
        self.powerAuth = powerAuth
    }

    public var baseURL: String { connection.baseURL }

    /// The configuration keys, for messages.
    public enum Keys {
        public static let prefix = "onboarding"
        public static let powerAuthApplicationKey = "onboarding.powerauth.application-key"
        public static let powerAuthApplicationSecretFile = "onboarding.powerauth.application-secret-file"
        public static let powerAuthMasterServerPublicKey = "onboarding.powerauth.master-server-public-key"
        public static let powerAuthBaseURL = "onboarding.powerauth.base-url"
    }
}

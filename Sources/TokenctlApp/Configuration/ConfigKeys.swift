import ErrorCodes
import OnboardingCore
import TokenActivation

/// Every key of the configuration file, as dotted paths of kebab-case names.
public enum ConfigKeys {
    static let databasePath = "database.path"
    static let databaseBusyTimeout = "database.busy-timeout-ms"
    static let databaseSynchronous = "database.synchronous"
    static let databaseURL = "database.url"
    static let databasePasswordFile = "database.password-file"
    static let databaseCAFile = "database.tls.ca-file"
    static let databaseHostID = "database.host-id"
    static let databaseLease = "database.lease-ms"
    static let deeplinkFormats = "deeplinks.formats"
    static let tmpBaseURL = "tmp.base-url"
    static let tmpConnectTimeout = "tmp.connect-timeout-ms"
    static let tmpTimeout = "tmp.timeout-ms"
    static let tmpRetryAttempts = "tmp.retry.attempts"
    static let tmpRetryBackoff = "tmp.retry.backoff-ms"
    static let tmpTransport = "tmp.transport"
    static let tmpMaxConnections = "tmp.max-connections"
    static let tmpIdleTimeout = "tmp.idle-timeout-ms"
    static let tmpBearerTokenFile = TMPSettings.Keys.bearerTokenFile
    static let tmpAPIKeyHeader = TMPSettings.Keys.apiKeyHeader
    static let tmpAPIKeyFile = TMPSettings.Keys.apiKeyFile
    static let tmpCAFile = "tmp.tls.ca-file"
    static let tmpClientCertFile = "tmp.tls.client-cert-file"
    static let tmpClientKeyFile = "tmp.tls.client-key-file"
    static let onboardingBaseURL = "onboarding.base-url"
    static let onboardingInstanceID = "onboarding.instance-id"
    static let onboardingRequireFinished = "onboarding.require-finished-user-activation"
    static let onboardingConnectTimeout = "onboarding.connect-timeout-ms"
    static let onboardingTimeout = "onboarding.timeout-ms"
    static let onboardingCAFile = "onboarding.tls.ca-file"
    static let onboardingClientCertFile = "onboarding.tls.client-cert-file"
    static let onboardingClientKeyFile = "onboarding.tls.client-key-file"
    static let onboardingPINLoginWithin = "onboarding.require-pin-login-within-seconds"
    static let loginBackendURL = LoginSettings.Keys.backendURL
    static let loginClientID = LoginSettings.Keys.clientID
    static let loginRelyingPartyURL = LoginSettings.Keys.relyingPartyURL
    static let loginConnectTimeout = "login.connect-timeout-ms"
    static let loginTimeout = "login.timeout-ms"
    static let loginCAFile = "login.tls.ca-file"
    static let loginClientCertFile = "login.tls.client-cert-file"
    static let loginClientKeyFile = "login.tls.client-key-file"
    static let serviceSocket = "service.socket"
    static let serviceSocketMode = "service.socket-mode"
    static let serviceMaxInFlight = "service.max-in-flight"
    static let serviceQueueLimit = "service.queue-limit"
    static let serviceIdempotencyRetention = "service.idempotency-retention-hours"
    static let serviceMaxConnections = "service.max-connections"
    static let serviceHeaderTimeout = "service.header-timeout-ms"
    static let serviceIdleTimeout = "service.idle-timeout-ms"
    static let serviceTLSCertFile = "service.tls.cert-file"
    static let serviceTLSKeyFile = "service.tls.key-file"
    static let serviceTLSClientCAFile = "service.tls.client-ca-file"
    static let serviceBearerTokenFile = "service.auth.bearer-token-file"
    static let logFormat = "log.format"
    static let powerAuthBaseURL = OnboardingSettings.Keys.powerAuthBaseURL
    static let powerAuthApplicationKey = OnboardingSettings.Keys.powerAuthApplicationKey
    static let powerAuthApplicationSecretFile = OnboardingSettings.Keys.powerAuthApplicationSecretFile
    static let powerAuthMasterServerPublicKey = OnboardingSettings.Keys.powerAuthMasterServerPublicKey

    /// Every key, in the order `config show` prints them.
    static let ordered: [String] = [
        databasePath, databaseBusyTimeout, databaseSynchronous,
        databaseURL, databasePasswordFile, databaseCAFile, databaseHostID, databaseLease, deeplinkFormats,
        tmpBaseURL, tmpTransport, tmpMaxConnections, tmpIdleTimeout, tmpConnectTimeout, tmpTimeout, tmpRetryAttempts, tmpRetryBackoff,
        tmpBearerTokenFile, tmpAPIKeyHeader, tmpAPIKeyFile,
        tmpCAFile, tmpClientCertFile, tmpClientKeyFile,
        onboardingBaseURL, onboardingInstanceID, onboardingRequireFinished, onboardingPINLoginWithin,
        onboardingConnectTimeout, onboardingTimeout, onboardingCAFile, onboardingClientCertFile, onboardingClientKeyFile,
        powerAuthBaseURL, powerAuthApplicationKey, powerAuthApplicationSecretFile, powerAuthMasterServerPublicKey,
        loginBackendURL, loginClientID, loginRelyingPartyURL,
        loginConnectTimeout, loginTimeout, loginCAFile, loginClientCertFile, loginClientKeyFile,
        serviceSocket, serviceSocketMode, serviceMaxInFlight, serviceQueueLimit, serviceIdempotencyRetention,
        serviceMaxConnections, serviceHeaderTimeout, serviceIdleTimeout, serviceTLSCertFile, serviceTLSKeyFile, serviceTLSClientCAFile, serviceBearerTokenFile,
        logFormat,
    ]

    static let all = Set(ordered)

    /// The configuration keys a message names, in the order `config show` prints them (the
    /// longest first where one key is part of another).
    public static func named(in message: String) -> [String] {
        let found = ordered.filter { message.contains($0) }
        return found.filter { key in !found.contains { $0 != key && $0.hasPrefix(key) && message.contains($0) } }
    }

    /// Variables that are not keys: the file's location, the log level and the secrets.
    static let otherVariables: Set<String> = [
        configFileVariable, logLevelVariable, Secret.tmpBearerToken.variable, Secret.tmpAPIKey.variable,
        Secret.powerAuthApplicationSecret.variable, Secret.databasePassword.variable,
    ]
    static let configFileVariable = "TOKENCTL_CONFIG"
    static let logLevelVariable = "TOKENCTL_LOG_LEVEL"

    /// Every `TOKENCTL_*` variable tokenctl reads.
    static let variables: Set<String> = Set(ordered.map(ConfigurationError.environmentName(for:))).union(otherVariables)

    /// The secrets, each read from the file a key names or else from its variable.
    struct Secret: Sendable {
        let name: String
        let fileKey: String
        let variable: String

        static let tmpBearerToken = Secret(name: "TMP bearer token", fileKey: tmpBearerTokenFile, variable: TMPSettings.Keys.bearerTokenVariable)
        static let tmpAPIKey = Secret(name: "TMP API key", fileKey: tmpAPIKeyFile, variable: TMPSettings.Keys.apiKeyVariable)
        static let powerAuthApplicationSecret = Secret(
            name: "PowerAuth application secret", fileKey: powerAuthApplicationSecretFile,
            variable: "TOKENCTL_ONBOARDING_POWERAUTH_APPLICATION_SECRET"
        )
        static let databasePassword = Secret(name: "PostgreSQL password", fileKey: databasePasswordFile, variable: "TOKENCTL_DATABASE_PASSWORD")
        static let all = [tmpBearerToken, tmpAPIKey, powerAuthApplicationSecret, databasePassword]
    }
}

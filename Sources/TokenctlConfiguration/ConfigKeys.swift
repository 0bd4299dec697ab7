import ErrorCodes
import OnboardingCore
import TokenActivation

/// Every key of the configuration file, as dotted paths of kebab-case names.
public enum ConfigKeys {
    public static let databasePath = "database.path"
    public static let databaseBusyTimeout = "database.busy-timeout-ms"
    public static let databaseSynchronous = "database.synchronous"
    public static let databaseURL = "database.url"
    public static let databasePasswordFile = "database.password-file"
    public static let databaseCAFile = "database.tls.ca-file"
    public static let databaseHostID = "database.host-id"
    public static let databaseLease = "database.lease-ms"
    public static let databaseReconnectWindow = "database.reconnect-window-ms"
    public static let deeplinkFormats = "deeplinks.formats"
    public static let tmpBaseURL = "tmp.base-url"
    public static let tmpConnectTimeout = "tmp.connect-timeout-ms"
    public static let tmpTimeout = "tmp.timeout-ms"
    public static let tmpRetryAttempts = "tmp.retry.attempts"
    public static let tmpRetryBackoff = "tmp.retry.backoff-ms"
    public static let tmpTransport = "tmp.transport"
    public static let tmpMaxConnections = "tmp.max-connections"
    public static let tmpIdleTimeout = "tmp.idle-timeout-ms"
    public static let tmpBearerTokenFile = TMPSettings.Keys.bearerTokenFile
    public static let tmpAPIKeyHeader = TMPSettings.Keys.apiKeyHeader
    public static let tmpAPIKeyFile = TMPSettings.Keys.apiKeyFile
    public static let tmpCAFile = "tmp.tls.ca-file"
    public static let tmpClientCertFile = "tmp.tls.client-cert-file"
    public static let tmpClientKeyFile = "tmp.tls.client-key-file"
    public static let onboardingBaseURL = "onboarding.base-url"
    public static let onboardingInstanceID = "onboarding.instance-id"
    public static let onboardingRequireFinished = "onboarding.require-finished-user-activation"
    public static let onboardingConnectTimeout = "onboarding.connect-timeout-ms"
    public static let onboardingTimeout = "onboarding.timeout-ms"
    public static let onboardingCAFile = "onboarding.tls.ca-file"
    public static let onboardingClientCertFile = "onboarding.tls.client-cert-file"
    public static let onboardingClientKeyFile = "onboarding.tls.client-key-file"
    public static let onboardingPINLoginWithin = "onboarding.require-pin-login-within-seconds"
    public static let loginBackendURL = LoginSettings.Keys.backendURL
    public static let loginClientID = LoginSettings.Keys.clientID
    public static let loginRelyingPartyURL = LoginSettings.Keys.relyingPartyURL
    public static let loginConnectTimeout = "login.connect-timeout-ms"
    public static let loginTimeout = "login.timeout-ms"
    public static let loginCAFile = "login.tls.ca-file"
    public static let loginClientCertFile = "login.tls.client-cert-file"
    public static let loginClientKeyFile = "login.tls.client-key-file"
    public static let serviceSocket = "service.socket"
    public static let serviceSocketMode = "service.socket-mode"
    public static let serviceMaxInFlight = "service.max-in-flight"
    public static let serviceQueueLimit = "service.queue-limit"
    public static let serviceIdempotencyRetention = "service.idempotency-retention-hours"
    public static let serviceMaxConnections = "service.max-connections"
    public static let serviceHeaderTimeout = "service.header-timeout-ms"
    public static let serviceIdleTimeout = "service.idle-timeout-ms"
    public static let serviceTLSCertFile = "service.tls.cert-file"
    public static let serviceTLSKeyFile = "service.tls.key-file"
    public static let serviceTLSClientCAFile = "service.tls.client-ca-file"
    public static let serviceBearerTokenFile = "service.auth.bearer-token-file"
    public static let logFormat = "log.format"
    public static let auditOrigin = AuditSettings.Keys.origin
    public static let auditSigningKeyFile = AuditSettings.Keys.signingKeyFile
    public static let auditCheckpointInterval = AuditSettings.Keys.checkpointInterval
    public static let auditWitnesses = AuditSettings.Keys.witnesses
    public static let auditWitnessTimeout = AuditSettings.Keys.witnessTimeout
    public static let powerAuthBaseURL = OnboardingSettings.Keys.powerAuthBaseURL
    public static let powerAuthApplicationKey = OnboardingSettings.Keys.powerAuthApplicationKey
    public static let powerAuthApplicationSecretFile = OnboardingSettings.Keys.powerAuthApplicationSecretFile
    public static let powerAuthMasterServerPublicKey = OnboardingSettings.Keys.powerAuthMasterServerPublicKey

    /// Every key, in the order `config show` prints them.
    public static let ordered: [String] = [
        databasePath, databaseBusyTimeout, databaseSynchronous,
        databaseURL, databasePasswordFile, databaseCAFile, databaseHostID, databaseLease, databaseReconnectWindow,
        deeplinkFormats,
        tmpBaseURL, tmpTransport, tmpMaxConnections, tmpIdleTimeout, tmpConnectTimeout, tmpTimeout, tmpRetryAttempts,
        tmpRetryBackoff,
        tmpBearerTokenFile, tmpAPIKeyHeader, tmpAPIKeyFile,
        tmpCAFile, tmpClientCertFile, tmpClientKeyFile,
        onboardingBaseURL, onboardingInstanceID, onboardingRequireFinished, onboardingPINLoginWithin,
        onboardingConnectTimeout, onboardingTimeout, onboardingCAFile, onboardingClientCertFile,
        onboardingClientKeyFile,
        powerAuthBaseURL, powerAuthApplicationKey, powerAuthApplicationSecretFile, powerAuthMasterServerPublicKey,
        loginBackendURL, loginClientID, loginRelyingPartyURL,
        loginConnectTimeout, loginTimeout, loginCAFile, loginClientCertFile, loginClientKeyFile,
        serviceSocket, serviceSocketMode, serviceMaxInFlight, serviceQueueLimit, serviceIdempotencyRetention,
        serviceMaxConnections, serviceHeaderTimeout, serviceIdleTimeout, serviceTLSCertFile, serviceTLSKeyFile,
        serviceTLSClientCAFile, serviceBearerTokenFile,
        auditOrigin, auditSigningKeyFile, auditCheckpointInterval, auditWitnesses, auditWitnessTimeout,
        logFormat,
    ]

    public static let all = Set(ordered)

    /// The configuration keys a message names, in the order `config show` prints them (the
    /// longest first where one key is part of another).
    public static func named(in message: String) -> [String] {
        let found = ordered.filter { message.contains($0) }
        return found.filter { key in !found.contains { $0 != key && $0.hasPrefix(key) && message.contains($0) } }
    }

    /// Variables that are not keys: the file's location, the log level and the secrets.
    public static let otherVariables: Set<String> = [
        configFileVariable, logLevelVariable, Secret.tmpBearerToken.variable, Secret.tmpAPIKey.variable,
        Secret.powerAuthApplicationSecret.variable, Secret.databasePassword.variable,
    ]
    public static let configFileVariable = "TOKENCTL_CONFIG"
    public static let logLevelVariable = "TOKENCTL_LOG_LEVEL"

    /// Every `TOKENCTL_*` variable tokenctl reads.
    public static let variables: Set<String> = Set(ordered.map(ConfigurationError.environmentName(for:))).union(
        otherVariables)

    /// The secrets, each read from the file a key names or else from its variable.
    public struct Secret: Sendable {
        public let name: String
        public let fileKey: String
        public let variable: String

        public static let tmpBearerToken = Secret(
            name: "TMP bearer token", fileKey: tmpBearerTokenFile, variable: TMPSettings.Keys.bearerTokenVariable)
        public static let tmpAPIKey = Secret(
            name: "TMP API key", fileKey: tmpAPIKeyFile, variable: TMPSettings.Keys.apiKeyVariable)
        public static let powerAuthApplicationSecret = Secret(
            name: "PowerAuth application secret", fileKey: powerAuthApplicationSecretFile,
            variable: "TOKENCTL_ONBOARDING_POWERAUTH_APPLICATION_SECRET"
        )
        public static let databasePassword = Secret(
            name: "PostgreSQL password", fileKey: databasePasswordFile, variable: "TOKENCTL_DATABASE_PASSWORD")
        public static let all = [tmpBearerToken, tmpAPIKey, powerAuthApplicationSecret, databasePassword]
    }
}

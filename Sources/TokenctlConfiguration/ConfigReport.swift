import ErrorCodes
import TextFormats
import WalletModel

/// The effective configuration, key by key, each value with where it came from, and the
/// secrets only as set or unset: what `tokenctl config show` prints.
public struct ConfigReport: Sendable {
    /// Where a value came from: a command-line flag, a `TOKENCTL_*` variable, the file, or
    /// the built-in default.
    public enum Source: Sendable, Equatable {
        case flag(String)
        case environment(String)
        case file(String)
        case builtIn

        /// `flag`, `environment`, `file` or `default`.
        public var kind: String {
            switch self {
            case .flag: "flag"
            case .environment: "environment"
            case .file: "file"
            case .builtIn: "default"
            }
        }

        /// The flag, the variable or the file's path; nil for a default.
        public var detail: String? {
            switch self {
            case .flag(let name), .environment(let name), .file(let name): name
            case .builtIn: nil
            }
        }
    }

    public struct Entry: Sendable {
        public let key: String
        public let value: JSONObject.Value
        public let source: Source
    }

    /// A secret: `from` names the key of its file or its variable; nil when unset.
    public struct Secret: Sendable {
        public let name: String
        public let from: String?
    }

    public let configFile: String?
    public let entries: [Entry]
    public let secrets: [Secret]

    init(
        settings: Settings, origins: [String: ConfigOrigin], flags: SettingsLoader.Flags, environment: [String: String]
    ) {
        configFile = settings.configFile
        let values = ConfigValues.of(settings)
        entries = ConfigKeys.ordered.map { key in
            let source: Source =
                if key == ConfigKeys.databasePath, flags.databasePath != nil {
                    .flag("--database")
                } else if key == ConfigKeys.databaseHostID, flags.hostID != nil {
                    .flag("--host-id")
                } else {
                    switch origins[key] {
                    case .file(let path): .file(path)
                    case .environment: .environment(ConfigurationError.environmentName(for: key))
                    case nil: .builtIn
                    }
                }
            return Entry(key: key, value: values[key] ?? .null, source: source)
        }
        secrets = ConfigKeys.Secret.all.map { secret in
            if values[secret.fileKey, default: .null] != .null {
                return Secret(name: secret.name, from: secret.fileKey)
            }
            let set = !(environment[secret.variable] ?? "").allSatisfy(\.isWhitespace)
            return Secret(name: secret.name, from: set ? secret.variable : nil)
        }
    }

    public var json: JSONObject {
        var settings = JSONObject([:])
        for entry in entries {
            var object = JSONObject(["value": entry.value, "origin": .string(entry.source.kind)])
            if let detail = entry.source.detail { object.append("from", .string(detail)) }
            settings.append(entry.key, .object(object))
        }
        var secretsObject = JSONObject([:])
        for secret in secrets {
            var object = JSONObject(["set": .bool(secret.from != nil)])
            if let from = secret.from { object.append("from", .string(from)) }
            secretsObject.append(secret.name, .object(object))
        }
        return JSONObject([
            "configFile": .optional(configFile), "settings": .object(settings), "secrets": .object(secretsObject),
        ])
    }
}

/// Each key's effective value, read back from ``Settings``.
enum ConfigValues {
    static func of(_ settings: Settings) -> [String: JSONObject.Value] {
        typealias K = ConfigKeys
        let tmp = settings.tmp, service = settings.service, onboarding = settings.onboarding, login = settings.login,
            powerAuth = onboarding.powerAuth
        return [
            K.databasePath: .string(settings.database.path),
            K.databaseBusyTimeout: .int(settings.database.busyTimeoutMilliseconds),
            K.databaseSynchronous: .string(settings.database.durability.rawValue),
            K.databaseURL: .optional(settings.postgres?.displayURL),
            K.databasePasswordFile: .optional(settings.postgres?.passwordFile),
            K.databaseCAFile: .optional(settings.postgres?.caFile),
            K.databaseHostID: .string(settings.hostID),
            K.databaseLease: .int(settings.leaseMilliseconds),
            K.databaseReconnectWindow: .int(settings.reconnectWindowMilliseconds),
            K.deeplinkFormats: .array(settings.deeplinkFormats.map { .string($0.description) }),
            K.tmpBaseURL: .string(tmp.baseURL),
            K.tmpTransport: .optional(tmp.transport?.rawValue),
            K.tmpMaxConnections: .int(tmp.maxConnections),
            K.tmpIdleTimeout: .int(tmp.idleTimeoutMilliseconds),
            K.tmpConnectTimeout: .int(tmp.connectTimeoutMilliseconds),
            K.tmpTimeout: .int(tmp.timeoutMilliseconds),
            K.tmpRetryAttempts: .int(tmp.retry.attempts),
            K.tmpRetryBackoff: .array(tmp.retry.backoffMilliseconds.map { .int($0) }),
            K.tmpBearerTokenFile: .optional(tmp.authentication.bearerTokenFile),
            K.tmpAPIKeyHeader: .optional(tmp.authentication.apiKeyHeader),
            K.tmpAPIKeyFile: .optional(tmp.authentication.apiKeyFile),
            K.tmpCAFile: .optional(tmp.tls.caFile),
            K.tmpClientCertFile: .optional(tmp.tls.clientCertificateFile),
            K.tmpClientKeyFile: .optional(tmp.tls.clientKeyFile),
            K.onboardingBaseURL: .string(onboarding.connection.baseURL),
            K.onboardingInstanceID: .string(onboarding.instanceID),
            K.onboardingRequireFinished: .bool(onboarding.requiresFinishedUserActivation),
            K.onboardingPINLoginWithin: onboarding.pinLoginWithinSeconds.map { .int($0) } ?? .null,
            K.onboardingConnectTimeout: .int(onboarding.connection.connectTimeoutMilliseconds),
            K.onboardingTimeout: .int(onboarding.connection.timeoutMilliseconds),
            K.onboardingCAFile: .optional(onboarding.connection.tls.caFile),
            K.onboardingClientCertFile: .optional(onboarding.connection.tls.clientCertificateFile),
            K.onboardingClientKeyFile: .optional(onboarding.connection.tls.clientKeyFile),
            K.powerAuthBaseURL: .optional(powerAuth.baseURL),
            K.powerAuthApplicationKey: .optional(powerAuth.applicationKey),
            K.powerAuthApplicationSecretFile: .optional(powerAuth.applicationSecretFile),
            K.powerAuthMasterServerPublicKey: .optional(powerAuth.masterServerPublicKey),
            K.loginBackendURL: .string(login.connection.baseURL),
            K.loginClientID: .string(login.clientID),
            K.loginRelyingPartyURL: .string(login.relyingPartyURL),
            K.loginConnectTimeout: .int(login.connection.connectTimeoutMilliseconds),
            K.loginTimeout: .int(login.connection.timeoutMilliseconds),
            K.loginCAFile: .optional(login.connection.tls.caFile),
            K.loginClientCertFile: .optional(login.connection.tls.clientCertificateFile),
            K.loginClientKeyFile: .optional(login.connection.tls.clientKeyFile),
            K.serviceSocket: .string(service.socket),
            K.serviceSocketMode: .string(String(service.socketMode, radix: 8)),
            K.serviceMaxInFlight: .int(service.maxInFlight),
            K.serviceQueueLimit: .int(service.queueLimit),
            K.serviceIdempotencyRetention: .int(service.idempotencyRetentionHours),
            K.serviceMaxConnections: .int(service.maxConnections),
            K.serviceHeaderTimeout: .int(service.headerTimeoutMilliseconds),
            K.serviceIdleTimeout: .int(service.idleTimeoutMilliseconds),
            K.serviceTLSCertFile: .optional(service.tls.certificateFile),
            K.serviceTLSKeyFile: .optional(service.tls.keyFile),
            K.serviceTLSClientCAFile: .optional(service.tls.clientCAFile),
            K.serviceBearerTokenFile: .optional(service.bearerTokenFile),
            K.auditOrigin: .optional(settings.audit.origin),
            K.auditSigningKeyFile: .optional(settings.audit.signingKeyFile),
            K.auditCheckpointInterval: .int(settings.audit.checkpointIntervalSeconds),
            K.auditWitnesses: .array(
                settings.audit.witnesses.map {
                    .object(JSONObject(["url": .string($0.url), "verifier-key": .string($0.verifierKey)]))
                }),
            K.auditWitnessTimeout: .int(settings.audit.witnessTimeoutMilliseconds),
            K.logFormat: .string(settings.logFormat.rawValue),
        ]
    }
}

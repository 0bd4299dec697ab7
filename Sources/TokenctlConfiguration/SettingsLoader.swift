import Configuration
import ErrorCodes
import Foundation
import HTTPTransport
import TokenActivation
import TransparencyLog
import WalletModel

/// Loads ``Settings`` from flags, `TOKENCTL_*` environment variables, a JSON
/// configuration file and the built-in defaults, in that order of precedence.
public struct SettingsLoader: Sendable {
    /// Values given as command-line flags (highest precedence).
    public struct Flags: Sendable, Equatable {
        public var configFile: String?
        public var databasePath: String?
        /// `--host-id`: this host's name in attempt leases (PostgreSQL).
        public var hostID: String?
        /// A PostgreSQL URL in place of `database.url` (`db copy --to`).
        public var databaseURL: String?
        public init(
            configFile: String? = nil, databasePath: String? = nil, hostID: String? = nil, databaseURL: String? = nil
        ) {
            self.configFile = configFile
            self.databasePath = databasePath
            self.hostID = hostID
            self.databaseURL = databaseURL
        }
    }

    private let environment: [String: String]

    /// - Parameter environment: the process environment (injected for tests).
    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// Resolves the configuration.
    ///
    /// The file is `--config`, else `$TOKENCTL_CONFIG`, else
    /// `$XDG_CONFIG_HOME/tokenctl/config.json` (`~/.config/…`), else
    /// `/etc/tokenctl/config.json`; none of them is fine (defaults apply), but a file
    /// named by the flag or the variable must exist.
    ///
    /// - Throws: ``ConfigurationError`` naming the file or variable and the key.
    public func load(flags: Flags = Flags()) async throws -> Settings {
        let (layers, file) = try self.layers(flags: flags)
        return try resolve(layers, flags: flags, file: file)
    }

    /// The settings ``load(flags:)`` gives, each with where it came from.
    public func report(flags: Flags = Flags()) async throws -> ConfigReport {
        let (layers, file) = try self.layers(flags: flags)
        let settings = try resolve(layers, flags: flags, file: file)
        return ConfigReport(settings: settings, origins: layers.origins.found, flags: flags, environment: environment)
    }

    private func layers(flags: Flags) throws -> (ConfigLayers, file: String?) {
        try ConfigFileCheck.validate(environment: environment)
        let file = try locateFile(flags: flags)
        var layers = ConfigLayers(environment: environment)
        if let file {
            // Read once, parsed once: the checked object becomes the file's layer.
            let object = try ConfigFileCheck.validate(try Self.read(file), path: file)
            layers.file = (ConfigFileValues(object), file)
        }
        return (layers, file)
    }

    private func resolve(_ layers: ConfigLayers, flags: Flags, file: String?) throws -> Settings {
        var settings = Settings.builtIn(environment: environment)
        settings.configFile = file

        if let path = flags.databasePath {
            settings.database.path = path
            settings.database.createsDirectory = false
        } else if let (path, origin) = try layers.string(ConfigKeys.databasePath) {
            settings.database.path = try nonEmpty(path, ConfigKeys.databasePath, origin).resolvingPath(from: origin)
            settings.database.createsDirectory = false
        }
        try layers.int(ConfigKeys.databaseBusyTimeout, min: 0).map { settings.database.busyTimeoutMilliseconds = $0 }
        if let (mode, origin) = try layers.string(ConfigKeys.databaseSynchronous) {
            guard let durability = StoreOptions.Durability(rawValue: mode) else {
                throw ConfigurationError.invalidValue(
                    key: ConfigKeys.databaseSynchronous, origin: origin, expected: "normal or full")
            }
            settings.database.durability = durability
        }
        if let (formats, origin) = try layers.stringArray(ConfigKeys.deeplinkFormats) {
            let expected = "launch URLs of the form scheme://host[/path], such as \"mybank://activate\""
            guard !formats.isEmpty else {
                throw ConfigurationError.invalidValue(
                    key: ConfigKeys.deeplinkFormats, origin: origin, expected: "a non-empty list of \(expected)")
            }
            settings.deeplinkFormats = try formats.map { text in
                guard let format = DeeplinkFormat(text) else {
                    throw ConfigurationError.invalidValue(
                        key: ConfigKeys.deeplinkFormats, origin: origin,
                        expected: "\(expected); \"\(text.prefix(80))\" is not one")
                }
                return format
            }
        }

        try layers.url(ConfigKeys.tmpBaseURL).map { settings.tmp.baseURL = $0 }
        if let (name, origin) = try layers.string(ConfigKeys.tmpTransport) {
            guard let transport = TMPSettings.Transport(rawValue: name) else {
                throw ConfigurationError.invalidValue(
                    key: ConfigKeys.tmpTransport, origin: origin, expected: "easy or multi")
            }
            settings.tmp.transport = transport
        }
        try layers.int(ConfigKeys.tmpMaxConnections, min: 1).map { settings.tmp.maxConnections = $0 }
        try layers.int(ConfigKeys.tmpIdleTimeout, min: 1).map { settings.tmp.idleTimeoutMilliseconds = $0 }
        try layers.int(ConfigKeys.tmpConnectTimeout, min: 1).map { settings.tmp.connectTimeoutMilliseconds = $0 }
        try layers.int(ConfigKeys.tmpTimeout, min: 1).map { settings.tmp.timeoutMilliseconds = $0 }
        try layers.int(ConfigKeys.tmpRetryAttempts, min: 1).map { settings.tmp.retry.attempts = $0 }
        if let (backoff, origin) = try layers.intArray(ConfigKeys.tmpRetryBackoff) {
            guard backoff.allSatisfy({ $0 >= 0 }) else {
                throw ConfigurationError.invalidValue(
                    key: ConfigKeys.tmpRetryBackoff, origin: origin, expected: "a list of non-negative milliseconds")
            }
            settings.tmp.retry.backoffMilliseconds = backoff
        }
        settings.tmp.authentication.bearerTokenFile = try layers.path(ConfigKeys.tmpBearerTokenFile)
        settings.tmp.authentication.apiKeyHeader = try layers.string(ConfigKeys.tmpAPIKeyHeader).map {
            try nonEmpty($0.0, ConfigKeys.tmpAPIKeyHeader, $0.1)
        }
        settings.tmp.authentication.apiKeyFile = try layers.path(ConfigKeys.tmpAPIKeyFile)
        settings.tmp.tls.caFile = try layers.path(ConfigKeys.tmpCAFile)
        settings.tmp.tls.clientCertificateFile = try layers.path(ConfigKeys.tmpClientCertFile)
        settings.tmp.tls.clientKeyFile = try layers.path(ConfigKeys.tmpClientKeyFile)
        // After the TMP keys: the lease's default is twice the longest an attempt may take.
        let configuredHost = try layers.string(ConfigKeys.databaseHostID).map {
            try nonEmpty($0.0, ConfigKeys.databaseHostID, $0.1)
        }
        settings.hostID =
            try flags.hostID.map { try nonEmpty($0, "--host-id", .environment) } ?? configuredHost ?? ProcessIdentity
            .hostName ?? "localhost"
        settings.leaseMilliseconds =
            try layers.int(ConfigKeys.databaseLease, min: 1000) ?? 2 * settings.tmp.longestAttemptMilliseconds
        try layers.int(ConfigKeys.databaseReconnectWindow, min: 100).map { settings.reconnectWindowMilliseconds = $0 }
        settings.postgres = try postgres(layers, flags: flags, settings: settings)

        try layers.url(ConfigKeys.onboardingBaseURL).map { settings.onboarding.connection.baseURL = $0 }
        try layers.int(ConfigKeys.onboardingConnectTimeout, min: 1).map {
            settings.onboarding.connection.connectTimeoutMilliseconds = $0
        }
        try layers.int(ConfigKeys.onboardingTimeout, min: 1).map {
            settings.onboarding.connection.timeoutMilliseconds = $0
        }
        settings.onboarding.connection.tls.caFile = try layers.path(ConfigKeys.onboardingCAFile)
        settings.onboarding.connection.tls.clientCertificateFile = try layers.path(ConfigKeys.onboardingClientCertFile)
        settings.onboarding.connection.tls.clientKeyFile = try layers.path(ConfigKeys.onboardingClientKeyFile)
        if let (id, origin) = try layers.string(ConfigKeys.onboardingInstanceID) {
            settings.onboarding.instanceID = try nonEmpty(id, ConfigKeys.onboardingInstanceID, origin)
        }
        try layers.bool(ConfigKeys.onboardingRequireFinished).map {
            settings.onboarding.requiresFinishedUserActivation = $0
        }
        settings.onboarding.pinLoginWithinSeconds = try layers.int(ConfigKeys.onboardingPINLoginWithin, min: 1)
        try layers.url(ConfigKeys.loginBackendURL).map { settings.login.connection.baseURL = $0 }
        if let (id, origin) = try layers.string(ConfigKeys.loginClientID) {
            settings.login.clientID = try nonEmpty(id, ConfigKeys.loginClientID, origin)
        }
        try layers.url(ConfigKeys.loginRelyingPartyURL).map { settings.login.relyingPartyURL = $0 }
        try layers.int(ConfigKeys.loginConnectTimeout, min: 1).map {
            settings.login.connection.connectTimeoutMilliseconds = $0
        }
        try layers.int(ConfigKeys.loginTimeout, min: 1).map { settings.login.connection.timeoutMilliseconds = $0 }
        settings.login.connection.tls.caFile = try layers.path(ConfigKeys.loginCAFile)
        settings.login.connection.tls.clientCertificateFile = try layers.path(ConfigKeys.loginClientCertFile)
        settings.login.connection.tls.clientKeyFile = try layers.path(ConfigKeys.loginClientKeyFile)
        settings.onboarding.powerAuth.baseURL = try layers.url(ConfigKeys.powerAuthBaseURL)
        settings.onboarding.powerAuth.applicationKey = try layers.string(ConfigKeys.powerAuthApplicationKey).map {
            try nonEmpty($0.0, ConfigKeys.powerAuthApplicationKey, $0.1)
        }
        settings.onboarding.powerAuth.applicationSecretFile = try layers.path(ConfigKeys.powerAuthApplicationSecretFile)
        if let (key, origin) = try layers.string(ConfigKeys.powerAuthMasterServerPublicKey) {
            guard let bytes = Data(base64Encoded: key), bytes.count == 65 || bytes.count == 33 else {
                throw ConfigurationError.invalidValue(
                    key: ConfigKeys.powerAuthMasterServerPublicKey, origin: origin,
                    expected: "Base64 of a P-256 public key (65 or 33 bytes)")
            }
            settings.onboarding.powerAuth.masterServerPublicKey = key
        }
        try service(layers, into: &settings.service)
        try audit(layers, into: &settings.audit)
        if let (name, origin) = try layers.string(ConfigKeys.logFormat) {
            guard let format = LogFormat(rawValue: name) else {
                throw ConfigurationError.invalidValue(
                    key: ConfigKeys.logFormat, origin: origin,
                    expected: LogFormat.names.replacingOccurrences(of: ", ", with: " or "))
            }
            settings.logFormat = format
        }
        return settings
    }

    /// `service.*`: where `tokenctl serve` listens and how much it admits.
    private func audit(_ layers: ConfigLayers, into audit: inout AuditSettings) throws {
        if let (origin, from) = try layers.string(ConfigKeys.auditOrigin) {
            guard AuditSettings.isValidOrigin(origin) else {
                throw ConfigurationError.invalidValue(
                    key: ConfigKeys.auditOrigin, origin: from,
                    expected:
                        "the log's name, at most 255 bytes, without spaces, '+', control or direction-changing characters, such as \"bank.example/tokenctl-audit\""
                )
            }
            audit.origin = origin
        }
        audit.signingKeyFile = try layers.path(ConfigKeys.auditSigningKeyFile)
        try layers.int(ConfigKeys.auditCheckpointInterval, min: 1).map { audit.checkpointIntervalSeconds = $0 }
        try layers.int(ConfigKeys.auditWitnessTimeout, min: 100).map { audit.witnessTimeoutMilliseconds = $0 }
        if let (objects, origin) = try layers.objects(ConfigKeys.auditWitnesses) {
            let expected =
                #"a list of {"url": "https://…", "verifier-key": "NAME+HASH+KEY"} objects, each a witness's submission URL and its cosigner key"#
            audit.witnesses = try objects.map { object in
                guard Set(object.keys) == ["url", "verifier-key"], let url = object["url"] as? String,
                    let key = object["verifier-key"] as? String,
                    ConfigLayers.isHTTPURL(url)
                else {
                    throw ConfigurationError.invalidValue(
                        key: ConfigKeys.auditWitnesses, origin: origin, expected: expected)
                }
                guard AuditSettings.isValidWitnessKey(key) else {
                    let named =
                        (try? NoteVerifier(verifierKey: key)) != nil
                        ? "a witness's cosigner key (algorithm 0x04, which the witness gives you) as the verifier-key of \(url), not a log's key (0x01, as tokenctl audit key generate prints)"
                        : expected
                    throw ConfigurationError.invalidValue(
                        key: ConfigKeys.auditWitnesses, origin: origin, expected: named)
                }
                return AuditSettings.WitnessSetting(
                    url: url.hasSuffix("/") ? String(url.dropLast()) : url, verifierKey: key)
            }
        }
    }

    private func service(_ layers: ConfigLayers, into service: inout ServiceSettings) throws {
        if let (path, origin) = try layers.string(ConfigKeys.serviceSocket) {
            service.socket = try nonEmpty(path, ConfigKeys.serviceSocket, origin).resolvingPath(from: origin)
        }
        if let (mode, origin) = try layers.string(ConfigKeys.serviceSocketMode) {
            guard let bits = UInt16(mode, radix: 8), bits <= 0o777, bits & 0o600 == 0o600 else {
                throw ConfigurationError.invalidValue(
                    key: ConfigKeys.serviceSocketMode, origin: origin,
                    expected: "octal permission bits with the owner's read and write, such as \"0660\"")
            }
            service.socketMode = bits
        }
        try layers.int(ConfigKeys.serviceMaxInFlight, min: 1).map { service.maxInFlight = $0 }
        try layers.int(ConfigKeys.serviceQueueLimit, min: 0).map { service.queueLimit = $0 }
        try layers.int(ConfigKeys.serviceIdempotencyRetention, min: 1).map { service.idempotencyRetentionHours = $0 }
        try layers.int(ConfigKeys.serviceMaxConnections, min: 1).map { service.maxConnections = $0 }
        try layers.int(ConfigKeys.serviceHeaderTimeout, min: 100).map { service.headerTimeoutMilliseconds = $0 }
        try layers.int(ConfigKeys.serviceIdleTimeout, min: 100).map { service.idleTimeoutMilliseconds = $0 }
        service.tls.certificateFile = try layers.path(ConfigKeys.serviceTLSCertFile)
        service.tls.keyFile = try layers.path(ConfigKeys.serviceTLSKeyFile)
        service.tls.clientCAFile = try layers.path(ConfigKeys.serviceTLSClientCAFile)
        service.bearerTokenFile = try layers.path(ConfigKeys.serviceBearerTokenFile)
    }

    /// `database.url` and the keys beside it; nil when the URL is not set or `--database`
    /// names a SQLite file. The
    /// password is read here, from `database.password-file` (owner-only) or
    /// `TOKENCTL_DATABASE_PASSWORD`. Call after the TMP keys, the host id and the lease.
    private func postgres(_ layers: ConfigLayers, flags: Flags, settings: Settings) throws -> PostgresOptions? {
        guard flags.databasePath == nil,
            let (text, origin) = try flags.databaseURL.map({ ($0, ConfigOrigin.environment) })
                ?? layers.string(ConfigKeys.databaseURL)
        else {
            return nil
        }
        let url: PostgresURL
        do {
            url = try PostgresURL(parsing: text)
        } catch {
            throw ConfigurationError.invalidValue(
                key: ConfigKeys.databaseURL, origin: origin,
                expected:
                    "postgres://USER@HOST[:PORT][,HOST[:PORT]…]/DATABASE[?sslmode=verify-full][&target_session_attrs=read-write]: \(error.reason)"
            )
        }
        let passwordFile = try layers.path(ConfigKeys.databasePasswordFile)
        var password: String?, passwordProblem: ConfigurationError?
        do {
            password = try SecretFile.secret(
                file: passwordFile, key: ConfigKeys.databasePasswordFile,
                variable: ConfigKeys.Secret.databasePassword.variable, environment: environment
            )
        } catch {
            passwordProblem = error
        }
        var options = PostgresOptions(
            endpoints: url.endpoints, user: url.user, database: url.database, tls: url.tls, password: password,
            caFile: try layers.path(ConfigKeys.databaseCAFile), hostID: settings.hostID,
            leaseMilliseconds: settings.leaseMilliseconds
        )
        options.connectTimeoutMilliseconds = settings.tmp.connectTimeoutMilliseconds
        options.targetSessionAttributes = url.targetSessionAttributes
        options.reconnectWindowMilliseconds = settings.reconnectWindowMilliseconds
        options.passwordFile = passwordFile
        options.passwordProblem = passwordProblem
        return options
    }

    private func locateFile(flags: Flags) throws -> String? {
        if let path = flags.configFile {
            guard FileManager.default.fileExists(atPath: path) else {
                throw ConfigurationError.fileMissing(path, namedBy: "--config")
            }
            return path
        }
        if let path = environment[ConfigKeys.configFileVariable], !path.isEmpty {
            guard FileManager.default.fileExists(atPath: path) else {
                throw ConfigurationError.fileMissing(path, namedBy: ConfigKeys.configFileVariable)
            }
            return path
        }
        let configHome =
            environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? "") + "/.config"
        for candidate in [configHome + "/tokenctl/config.json", "/etc/tokenctl/config.json"]
        where FileManager.default.fileExists(atPath: candidate) {
            return candidate
        }
        return nil
    }

    private static func read(_ path: String) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError.unreadable(path, (error as NSError).localizedDescription)
        }
    }
}

private func nonEmpty(_ value: String, _ key: String, _ origin: ConfigOrigin) throws -> String {
    guard !value.isEmpty else {
        throw ConfigurationError.invalidValue(key: key, origin: origin, expected: "a non-empty string")
    }
    return value
}

extension String {
    /// A relative path in a configuration file is relative to that file's directory;
    /// one from the environment or a flag is relative to the working directory.
    func resolvingPath(from origin: ConfigOrigin) -> String {
        guard !hasPrefix("/"), case .file(let file) = origin else { return self }
        let directory = (file as NSString).deletingLastPathComponent
        return directory.isEmpty ? self : directory + "/" + self
    }
}

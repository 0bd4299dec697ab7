import Foundation
import HTTPTransport
import Logging
import OnboardingCore
import PowerAuth
import Storage

extension PowerAuthClientError: CodedError {}

/// The device-activation commands: one PowerAuth client on the configured
/// database and server, opened per call and closed after it.
public struct DeviceService: Sendable {
    public let settings: Settings
    let environment: [String: String]
    let logger: Logger
    let transport: (any HTTPTransport)?
    /// The PowerAuth parameters once resolved (``resolvingServer()``), so the secret file
    /// is read once per command.
    var resolved: PowerAuthSettings?

    public init(settings: Settings, environment: [String: String], logger: Logger, transport: (any HTTPTransport)? = nil) {
        self.settings = settings
        self.environment = environment
        self.logger = logger
        self.transport = transport
    }

    /// The PowerAuth parameters, with the application secret read from its file
    /// or environment variable.
    public func powerAuthSettings() throws(ConfigurationError) -> PowerAuthSettings {
        let powerAuth = settings.onboarding.powerAuth
        let purpose = "to talk to the PowerAuth server (tokenctl sandbox prints the sandbox's values)"
        guard let applicationKey = powerAuth.applicationKey else { throw .missingSetting(ConfigKeys.powerAuthApplicationKey, purpose: purpose) }
        guard let masterKey = powerAuth.masterServerPublicKey.flatMap({ Data(base64Encoded: $0) }) else {
            throw .missingSetting(ConfigKeys.powerAuthMasterServerPublicKey, purpose: purpose)
        }
        guard let secret = try TMPCredentials.secret(
            file: powerAuth.applicationSecretFile, key: ConfigKeys.powerAuthApplicationSecretFile,
            variable: "TOKENCTL_ONBOARDING_POWERAUTH_APPLICATION_SECRET", environment: environment
        ) else { throw .missingSetting(ConfigKeys.powerAuthApplicationSecretFile, purpose: purpose) }
        let baseURL = powerAuth.baseURL ?? settings.onboarding.baseURL
        try TMPCredentials.checkTransportSecurity(baseURL)
        return PowerAuthSettings(baseURL: baseURL, applicationKey: applicationKey, applicationSecret: secret, masterServerPublicKey: Array(masterKey), instanceID: settings.onboarding.instanceID)
    }

    /// The same service with its PowerAuth parameters checked and read now: a command
    /// calls this before asking for a PIN, so a configuration error comes first.
    public func resolvingServer() throws(ConfigurationError) -> DeviceService {
        var service = self
        service.resolved = try powerAuthSettings()
        return service
    }

    /// Runs `body` with a client on an open database; the database is closed after.
    func withClient<T>(needsServer: Bool = true, _ body: (PowerAuthClient) async throws -> T) async throws -> T {
        try await withConnection(needsServer: needsServer) { client, _, _ in try await body(client) }
    }

    /// Runs `body` with a PowerAuth client, its transport and the open database,
    /// which is closed after.
    func withConnection<T>(needsServer: Bool = true, _ body: (PowerAuthClient, any HTTPTransport, Store) async throws -> T) async throws -> T {
        let powerAuth: PowerAuthSettings
        if needsServer {
            powerAuth = try resolved ?? powerAuthSettings()
        } else {
            powerAuth = PowerAuthSettings(baseURL: settings.onboarding.baseURL, applicationKey: "", applicationSecret: "", masterServerPublicKey: [], instanceID: settings.onboarding.instanceID)
        }
        let httpTransport: any HTTPTransport
        if let transport {
            httpTransport = transport
        } else {
            httpTransport = try CurlTransport(options: CurlTransportOptions(
                connectTimeoutMilliseconds: settings.tmp.connectTimeoutMilliseconds,
                timeoutMilliseconds: settings.tmp.timeoutMilliseconds
            ))
        }
        let store = try Store(options: settings.storeOptions, logger: logger)
        do {
            let result = try await body(PowerAuthClient(settings: powerAuth, transport: httpTransport, store: store), httpTransport, store)
            try store.close()
            return result
        } catch {
            try? store.close()
            throw error
        }
    }

    public func activate(name: String, identityAttributes: [String: String], pin: [UInt8]) async throws -> DeviceActivation {
        try await withClient { try await $0.activate(name: name, identityAttributes: identityAttributes, pin: pin) }
    }

    public func status() async throws -> PowerAuthClient.Status {
        try await withClient { try await $0.status() }
    }

    /// The stored activation without asking the server.
    public func show() async throws -> DeviceActivation? {
        try await withClient(needsServer: false) { try $0.activation() }
    }

    public func signedRequest(path: String, body: [UInt8], factor: SignatureFactor, pin: [UInt8]?) async throws -> [UInt8] {
        try await withClient { try await $0.signedRequest(path: path, body: body, factor: factor, pin: pin) }
    }

    public func tokenRequest(path: String, body: [UInt8]) async throws -> [UInt8] {
        try await withClient { try await $0.tokenRequest(path: path, body: body) }
    }

    public func createToken(factor: SignatureFactor, pin: [UInt8]?) async throws -> DeviceActivation.Token {
        try await withClient { try await $0.createToken(factor: factor, pin: pin) }
    }

    /// Removes the activation on the server, then locally; with `localOnly` only forgets it.
    public func remove(localOnly: Bool, factor: SignatureFactor, pin: [UInt8]?) async throws {
        if localOnly {
            let removed = try await withClient(needsServer: false) { try $0.forget() }
            if !removed { throw PowerAuthClientError.notActivated(instance: settings.onboarding.instanceID) }
            return
        }
        try await withClient { try await $0.remove(factor: factor, pin: pin) }
    }
}

import ErrorCodes
import Foundation
import HTTPTransport
import Logging
import PowerAuth
import WalletModel

/// The signature factors a request can be signed with.
public typealias SignatureFactor = PowerAuth.SignatureFactor

/// The device-activation commands: one PowerAuth client on the configured database and
/// server, for one call.
public struct DeviceService: Sendable {
    public let settings: OnboardingSettings
    let environment: [String: String]
    let logger: Logger
    var database: StoreSource
    let transports: TransportFactory
    /// The PowerAuth parameters once resolved (``resolvingServer()``), so the secret file
    /// is read once per command.
    var resolved: PowerAuthSettings?

    /// - Parameters:
    ///   - database: the store to use, or where to open one per call.
    ///   - transports: libcurl by default; a test double in tests.
    public init(
        settings: OnboardingSettings, database: StoreSource, environment: [String: String], logger: Logger,
        transports: TransportFactory = .curl
    ) {
        self.settings = settings
        self.database = database
        self.environment = environment
        self.logger = logger
        self.transports = transports
    }

    /// The PowerAuth parameters, with the application secret read from its file or
    /// environment variable, and the servers' addresses and TLS files checked.
    public func powerAuthSettings() throws(ConfigurationError) -> PowerAuthSettings {
        typealias Keys = OnboardingSettings.Keys
        let powerAuth = settings.powerAuth
        let purpose = "to talk to the PowerAuth server (the sandbox prints the sandbox's values)"
        guard let applicationKey = powerAuth.applicationKey else {
            throw .missingSetting(Keys.powerAuthApplicationKey, purpose: purpose)
        }
        guard let masterKey = powerAuth.masterServerPublicKey.flatMap({ Data(base64Encoded: $0) }) else {
            throw .missingSetting(Keys.powerAuthMasterServerPublicKey, purpose: purpose)
        }
        guard
            let secret = try SecretFile.secret(
                file: powerAuth.applicationSecretFile, key: Keys.powerAuthApplicationSecretFile,
                variable: "TOKENCTL_ONBOARDING_POWERAUTH_APPLICATION_SECRET",
                environment: environment
            )
        else { throw .missingSetting(Keys.powerAuthApplicationSecretFile, purpose: purpose) }
        try settings.connection.check(keyPrefix: Keys.prefix)
        if let baseURL = powerAuth.baseURL {
            try ConnectionSettings.checkTransportSecurity(baseURL, key: Keys.powerAuthBaseURL)
        }
        return PowerAuthSettings(
            baseURL: powerAuth.baseURL ?? settings.baseURL, applicationKey: applicationKey, applicationSecret: secret,
            masterServerPublicKey: Array(masterKey), instanceID: settings.instanceID)
    }

    /// The same service with its PowerAuth parameters checked and read now: a command
    /// calls this before asking for a PIN, so a configuration error comes first.
    public func resolvingServer() throws(ConfigurationError) -> DeviceService {
        var service = self
        service.resolved = try powerAuthSettings()
        return service
    }

    /// Runs `body` with a client that only reads what is stored: no server parameters
    /// are needed or checked.
    func withLocalClient<T>(_ body: (PowerAuthClient) async throws -> T) async throws -> T {
        let local = PowerAuthSettings(
            baseURL: settings.baseURL, applicationKey: "", applicationSecret: "", masterServerPublicKey: [],
            instanceID: settings.instanceID)
        return try await database.using(logger: logger) { store in
            try await body(PowerAuthClient(settings: local, transport: ClosedTransport(), store: store))
        }
    }

    /// Runs `body` with a client on the configured server.
    func withClient<T>(_ body: (PowerAuthClient) async throws -> T) async throws -> T {
        try await withConnection { client, _, _ in try await body(client) }
    }

    /// Runs `body` with a PowerAuth client, its transport and the store.
    func withConnection<T>(
        _ body: (PowerAuthClient, any HTTPTransport, any OnboardingRecords) async throws -> T
    ) async throws -> T {
        let powerAuth = try resolved ?? powerAuthSettings()
        let transport: any HTTPTransport
        do {
            transport = try transports.transport(settings.connection.transportOptions)
        } catch {
            throw PowerAuthClientError.unreachable(error)
        }
        return try await database.using(logger: logger) { store in
            try await body(PowerAuthClient(settings: powerAuth, transport: transport, store: store), transport, store)
        }
    }

    public func activate(
        name: String, identityAttributes: [String: String], pin: [UInt8]
    ) async throws -> DeviceActivation {
        try await withClient { try await $0.activate(name: name, identityAttributes: identityAttributes, pin: pin) }
    }

    public func status() async throws -> PowerAuthClient.Status {
        try await withClient { try await $0.status() }
    }

    /// The stored activation without asking the server.
    public func show() async throws -> DeviceActivation? {
        try await withLocalClient { try await $0.activation() }
    }

    public func signedRequest(
        path: String, body: [UInt8], factor: SignatureFactor, pin: [UInt8]?
    ) async throws -> [UInt8] {
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
            let removed = try await withLocalClient { try await $0.forget() }
            if !removed { throw PowerAuthClientError.notActivated(instance: settings.instanceID) }
            return
        }
        try await withClient { try await $0.remove(factor: factor, pin: pin) }
    }
}

/// The transport of a client that only reads local state: any request is a bug, and
/// fails as unreachable without leaving the process.
struct ClosedTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        throw TransportError(.other, wasSent: false, detail: "no server is configured for a local-only call")
    }
}

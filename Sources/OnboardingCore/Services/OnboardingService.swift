import ErrorCodes
import HTTPTransport
import Logging
import TextFormats
import WalletModel

/// The onboarding commands: this instance's activation process on the configured
/// onboarding server (`onboarding.base-url`) and PowerAuth server.
public struct OnboardingService: Sendable {
    var device: DeviceService

    /// - Parameters:
    ///   - database: the store to use, or where to open one per call.
    ///   - transports: libcurl by default; a test double in tests.
    public init(
        settings: OnboardingSettings, database: StoreSource, environment: [String: String], logger: Logger,
        transports: TransportFactory = .curl
    ) {
        device = DeviceService(
            settings: settings, database: database, environment: environment, logger: logger, transports: transports)
    }

    public var settings: OnboardingSettings { device.settings }

    /// The same service with its server parameters checked and read now, so that a
    /// configuration error comes before any prompt.
    public func resolvingServer() throws(ConfigurationError) -> OnboardingService {
        var service = self
        service.device = try device.resolvingServer()
        return service
    }

    /// Runs `body` on the process, on one database handle for the whole command.
    /// - Parameter needsStoredProcess: answer `onboarding.notRunning` first, from the
    ///   database alone, when no process is stored: no server configuration is needed to say so.
    func withProcess<T>(
        needsStoredProcess: Bool = true, _ body: (ActivationProcess) async throws -> T
    ) async throws -> T {
        try await device.database.using(logger: device.logger) { store in
            if needsStoredProcess { try await Self.requireStoredProcess(instance: settings.instanceID, store) }
            var device = try device.resolved == nil ? device.resolvingServer() : device
            device.database = .shared(store)
            return try await device.withConnection { client, transport, store in
                let api = OnboardingAPI(baseURL: settings.baseURL, powerAuth: client.settings, transport: transport)
                return try await body(ActivationProcess(api: api, powerAuth: client, store: store))
            }
        }
    }

    /// Starts (or resumes) a process for these credentials; the OTP goes to the user.
    public func start(credentials: JSONObject.Value) async throws -> ActivationProcess.Started {
        try await withProcess(needsStoredProcess: false) { try await $0.start(credentials: credentials) }
    }

    /// Where the stored process stands, asked of the server. With no process stored the
    /// answer is local (`onboarding.notRunning`), and needs no server configured.
    public func status() async throws -> (processID: String, status: ActivationProcessStatus) {
        try await withProcess { try await $0.status() }
    }

    /// What `activate` made, and the activation flags the server reports right after
    /// (nil when that status could not be read).
    public struct Activated: Sendable {
        public var activation: DeviceActivation
        public var flags: [String]?
    }

    public func activate(otp: String, name: String?, pin: [UInt8]) async throws -> Activated {
        try await withProcess { process in
            let activation = try await process.activate(otp: otp, activationName: name, pin: pin)
            let flags = try? await process.powerAuth.status().flags
            return Activated(activation: activation, flags: flags)
        }
    }

    /// - Returns: whether the server confirmed the cleanup.
    public func cancel(force: Bool) async throws -> Bool {
        try await withProcess { try await $0.cancel(force: force) }
    }

    public func resendOTP() async throws {
        try await withProcess { try await $0.resendOTP() }
    }

    /// The current OTP from a demo server's `otp/detail` endpoint.
    public func demoOTP() async throws -> String {
        try await withProcess { try await $0.demoOTP() }
    }

    /// Throws `onboarding.notRunning` when no process is stored for `instance`.
    private static func requireStoredProcess(
        instance: String, _ store: any OnboardingProcessRecords & DeviceActivationRecords
    ) async throws {
        guard try await OnboardingProcessStore(records: store).processID(instance) == nil else { return }
        let activated = try await DeviceActivationStore(records: store).load(instance) != nil
        throw OnboardingError.notRunning(activated: activated)
    }
}

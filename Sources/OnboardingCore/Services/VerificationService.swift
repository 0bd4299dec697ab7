import ErrorCodes
import HTTPTransport
import Logging
import WalletModel

/// The identity verification commands: this instance's verification on the configured
/// onboarding server, with the device activation onboarding made.
public struct VerificationService: Sendable {
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

    /// The same service with its server parameters checked and read now.
    public func resolvingServer() throws(ConfigurationError) -> VerificationService {
        var service = self
        service.device = try device.resolvingServer()
        return service
    }

    /// Runs `body` on the verification, with one transport per contract timeout. Without a
    /// device activation the error names onboarding, which makes the activation a
    /// verification needs.
    public func withProcess<T>(_ body: (VerificationProcess) async throws -> T) async throws -> T {
        do {
            return try await withConnectedProcess(body)
        } catch let error as PowerAuthClientError {
            guard case .notActivated = error else { throw error }
            throw VerificationError(error.code, error.message, next: .onboard)
        }
    }

    private func withConnectedProcess<T>(_ body: (VerificationProcess) async throws -> T) async throws -> T {
        try await device.withConnection { client, transport, store in
            var transports: [IdentityAPI.Timeout: any HTTPTransport] = [:]
            for timeout in IdentityAPI.Timeout.allCases {
                var options = settings.connection.transportOptions
                options.timeoutMilliseconds = timeout.rawValue
                do throws(TransportError) {
                    transports[timeout] = try device.transports.transport(options)
                } catch {
                    throw OnboardingError(error)
                }
            }
            let api = IdentityAPI(baseURL: settings.baseURL, powerAuth: client, transports: transports)
            let onboarding = OnboardingAPI(baseURL: settings.baseURL, powerAuth: client.settings, transport: transport)
            return try await body(
                VerificationProcess(api: api, onboarding: onboarding, powerAuth: client, store: store))
        }
    }
}

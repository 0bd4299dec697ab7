import GRDB
import HTTPTransport
import Logging
import Storage

/// The activation pipeline: deeplink → wallet lookup → user check → audit "started" →
/// POST → outcome → audit "finished" and pass state. One call per deeplink.
public struct Activator: Sendable {
    private let settings: Settings
    private let environment: [String: String]
    private let transport: (any HTTPTransport)?
    private let userCheck: any UserActivationCheck
    private let logger: Logger
    private let clock: @Sendable () -> Timestamp

    /// - Parameters:
    ///   - transport: defaults to a ``CurlTransport`` built from the settings.
    ///   - userCheck: asked only when `onboarding.require-finished-user-activation` is on.
    ///   - clock: injected for tests.
    public init(
        settings: Settings, environment: [String: String], transport: (any HTTPTransport)? = nil,
        userCheck: any UserActivationCheck = OnboardingNotConfigured(),
        logger: Logger = Logger(label: "tokenctl.activation"), clock: @escaping @Sendable () -> Timestamp = Timestamp.now
    ) {
        self.settings = settings
        self.environment = environment
        self.transport = transport
        self.userCheck = userCheck
        self.logger = logger
        self.clock = clock
    }

    /// Activates the token behind one deeplink. Never throws: every failure is a result
    /// with an outcome and a coded error, audited whenever the deeplink parsed.
    ///
    /// - Parameters:
    ///   - device: names the pass when a serial has several (iPhone and Watch).
    ///   - dryRun: resolve everything, send and write nothing.
    public func activate(deeplink text: String, device: String? = nil, dryRun: Bool = false) async -> ActivationResult {
        let deeplink: Deeplink
        do {
            deeplink = try DeeplinkParser(formats: settings.deeplinkFormats.compactMap(DeeplinkFormat.init)).parse(text)
        } catch {
            return ActivationResult(outcome: .error, error: ActivationError(error))
        }
        let store: Store
        do {
            store = try Store(options: settings.storeOptions, logger: logger)
        } catch let error as StorageError {
            return ActivationResult(outcome: .error, error: ActivationError(error))
        } catch {
            return ActivationResult(outcome: .error, error: ActivationError(code: "storage.io", message: "\(error)"))
        }
        defer { try? store.close() }
        var logger = self.logger
        let requestID = Self.makeRequestID()
        logger[metadataKey: "request-id"] = "\(requestID)"

        let attempt = Attempt(deeplink: deeplink, deeplinkText: text, device: device, requestID: requestID, clock: clock)
        do {
            let prepared = await prepare()
            if dryRun {
                return try store.read { db in try attempt.dryRun(prepared: prepared, db) }
            }
            let start = try store.write { db in try attempt.start(prepared: prepared, db) }
            var result: ActivationResult
            switch start {
            case .stopped(let stopped):
                result = stopped
            case .sending(let record, let client, var started):
                logger.info("activation.sending", metadata: ["serial": "\(Mask.identifier(record.serialNumber))", "attempt": "\(started.auditID ?? 0)"])
                let began = ContinuousClock.now
                let answer = await client.activate(tokenUniqueReference: record.deviceAccountIdentifier, requestID: requestID)
                let latency = ContinuousClock.now - began
                started.apply(answer)
                result = try store.write { db in
                    try attempt.finish(record, result: started, latency: latency, db)
                }
            }
            logger.info("activation.finished", metadata: ["outcome": "\(result.outcome.rawValue)", "error": "\(result.error?.code ?? "-")"])
            return result
        } catch let error as any CodedError {
            return ActivationResult(outcome: .error, error: ActivationError(error))
        } catch {
            return ActivationResult(outcome: .error, error: ActivationError(code: "storage.io", message: "\(error)"))
        }
    }

    /// What must hold before anything is sent: a usable TMP configuration and, when
    /// required, a finished user activation. Failures are audited, not thrown.
    private func prepare() async -> Result<TMPClient, ActivationError> {
        let headers: [(name: String, value: String)]
        do {
            headers = try TMPCredentials.headers(settings, environment: environment)
        } catch {
            return .failure(ActivationError(error))
        }
        if settings.onboarding.requiresFinishedUserActivation {
            do {
                switch try await userCheck.status() {
                case .finished: break
                case .notFinished(let nextStep):
                    return .failure(ActivationError(code: "user.activationRequired", message: "user activation required: \(nextStep)"))
                case .notConfigured:
                    return .failure(ActivationError(code: "user.activationRequired", message: "user activation required, and no onboarding server is configured to ask: finish the user activation first (tokenctl onboarding), or turn off onboarding.require-finished-user-activation"))
                }
            } catch let error as any CodedError {
                return .failure(ActivationError(error))
            } catch {
                return .failure(ActivationError(code: "onboarding.unreachable", message: "the onboarding server could not be asked: \(error)"))
            }
        }
        let transport: any HTTPTransport
        if let injected = self.transport {
            transport = injected
        } else {
            do {
                transport = try CurlTransport(options: CurlTransportOptions(
                    connectTimeoutMilliseconds: settings.tmp.connectTimeoutMilliseconds,
                    timeoutMilliseconds: settings.tmp.timeoutMilliseconds,
                    caFile: settings.tmp.tls.caFile,
                    clientCertificateFile: settings.tmp.tls.clientCertificateFile,
                    clientKeyFile: settings.tmp.tls.clientKeyFile
                ))
            } catch {
                return .failure(ActivationError(code: error.code, message: error.detail))
            }
        }
        return .success(TMPClient(transport: transport, baseURL: settings.tmp.baseURL, authentication: headers, retry: settings.tmp.retry))
    }

    /// A random version 4 UUID.
    static func makeRequestID() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { String($0, radix: 16).leftPadded(2) }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }
}

import GRDB
import HTTPTransport
import Logging
import Storage

/// The activation pipeline: deeplink → wallet lookup → user check → audit "started" →
/// POST → outcome → audit "finished" and pass state. ``activate(deeplink:device:dryRun:)``
/// runs it once; ``activateBatch(from:concurrency:progress:emit:)`` streams many lines.
public struct Activator: Sendable {
    let settings: Settings
    private let environment: [String: String]
    private let transport: (any HTTPTransport)?
    private let userCheck: any UserActivationCheck
    let logger: Logger
    let clock: @Sendable () -> Timestamp

    /// - Parameters:
    ///   - transport: defaults to ``CurlTransport``s built from the settings.
    ///   - userCheck: asked (once) only when `onboarding.require-finished-user-activation` is on;
    ///     by default ``OnboardingUserCheck`` on the configured servers.
    ///   - clock: injected for tests.
    public init(
        settings: Settings, environment: [String: String], transport: (any HTTPTransport)? = nil,
        userCheck: (any UserActivationCheck)? = nil,
        logger: Logger = Logger(label: "tokenctl.activation"), clock: @escaping @Sendable () -> Timestamp = Timestamp.now
    ) {
        self.settings = settings
        self.environment = environment
        self.transport = transport
        self.userCheck = userCheck ?? OnboardingUserCheck(service: OnboardingService(settings: settings, environment: environment, logger: logger))
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
            deeplink = try parser.parse(text)
        } catch {
            return ActivationResult(outcome: .error, error: ActivationError(error))
        }
        let store: Store
        switch openStore() {
        case .success(let opened): store = opened
        case .failure(let error): return ActivationResult(outcome: .error, error: error)
        }
        defer { try? store.close() }
        let session: Session
        do {
            session = try await Session(activator: self, store: store, clients: 1)
        } catch {
            return ActivationResult(outcome: .error, error: Self.coded(error))
        }
        defer { session.close() }
        if dryRun {
            let attempt = session.attempt(deeplink, text: text, device: device)
            do {
                return try store.read { db in try attempt.dryRun(prepared: session.client(0), db) }
            } catch {
                return ActivationResult(outcome: .error, error: Self.coded(error))
            }
        }
        return await session.run(deeplink, text: text, device: device, client: 0)
    }

    var parser: DeeplinkParser {
        DeeplinkParser(formats: settings.deeplinkFormats.compactMap(DeeplinkFormat.init))
    }

    func openStore() -> Result<Store, ActivationError> {
        do {
            return .success(try Store(options: settings.storeOptions, logger: logger))
        } catch {
            return .failure(Self.coded(error))
        }
    }

    /// What must hold before anything is sent: a usable TMP configuration (the
    /// authentication headers) and, when required, a finished user activation.
    func preflight() async -> Result<[(name: String, value: String)], ActivationError> {
        let headers: [(name: String, value: String)]
        do {
            headers = try TMPCredentials.headers(settings, environment: environment)
        } catch {
            return .failure(ActivationError(error))
        }
        guard settings.onboarding.requiresFinishedUserActivation else { return .success(headers) }
        do {
            switch try await userCheck.status() {
            case .finished:
                return .success(headers)
            case .notFinished(let nextStep):
                return .failure(ActivationError(code: "user.activationRequired", message: "user activation required: \(nextStep)"))
            }
        } catch {
            // The check names its own failures (onboarding.unreachable, config.*, storage.*).
            return .failure(Self.coded(error))
        }
    }

    /// One TMP client per worker: on the injected transport, on one keep-alive
    /// ``CurlTransport`` each, or all on one ``CurlMultiTransport`` (`tmp.transport`).
    func makeClients(count: Int, headers: [(name: String, value: String)]) -> ([Result<TMPClient, ActivationError>], CurlMultiTransport?) {
        let options = CurlTransportOptions(
            connectTimeoutMilliseconds: settings.tmp.connectTimeoutMilliseconds,
            timeoutMilliseconds: settings.tmp.timeoutMilliseconds,
            caFile: settings.tmp.tls.caFile,
            clientCertificateFile: settings.tmp.tls.clientCertificateFile,
            clientKeyFile: settings.tmp.tls.clientKeyFile
        )
        func client(_ transport: any HTTPTransport) -> Result<TMPClient, ActivationError> {
            .success(TMPClient(transport: transport, baseURL: settings.tmp.baseURL, authentication: headers, retry: settings.tmp.retry))
        }
        func failure(_ error: TransportError) -> Result<TMPClient, ActivationError> {
            .failure(ActivationError(code: error.code, message: error.detail))
        }
        if let injected = transport {
            return (Array(repeating: client(injected), count: count), nil)
        }
        if settings.tmp.transport == .multi {
            do {
                let multi = try CurlMultiTransport(options: options)
                return (Array(repeating: client(multi), count: count), multi)
            } catch {
                return (Array(repeating: failure(error), count: count), nil)
            }
        }
        return ((0..<count).map { _ -> Result<TMPClient, ActivationError> in
            do throws(TransportError) {
                return client(try CurlTransport(options: options))
            } catch {
                return failure(error)
            }
        }, nil)
    }

    static func coded(_ error: any Error) -> ActivationError {
        if let coded = error as? any CodedError { return ActivationError(coded) }
        return ActivationError(code: "storage.io", message: "\(error)")
    }

    /// A random version 4 UUID.
    static func makeRequestID() -> String {
        // Two draws from the system generator (one getrandom each), not one per byte.
        var generator = SystemRandomNumberGenerator()
        var bytes = withUnsafeBytes(of: (generator.next() as UInt64, generator.next() as UInt64)) { Array($0) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array(Hex.encode(bytes))
        return [hex[0..<8], hex[8..<12], hex[12..<16], hex[16..<20], hex[20..<32]].map { String($0) }.joined(separator: "-")
    }
}

/// What one process shares across its activations: the database (through the group
/// committer), the preflight result, and one TMP client per concurrent worker.
struct Session: Sendable {
    let activator: Activator
    let committer: GroupCommitter
    private let clients: [Result<TMPClient, ActivationError>]
    private let multi: CurlMultiTransport?
    private let hashKey: [UInt8]

    init(activator: Activator, store: Store, clients count: Int) async throws {
        self.activator = activator
        committer = GroupCommitter(store: store)
        hashKey = try store.read { try AuditLog.deeplinkHashKey($0) }
        switch await activator.preflight() {
        case .failure(let error):
            clients = Array(repeating: .failure(error), count: count)
            multi = nil
        case .success(let headers):
            (clients, multi) = activator.makeClients(count: count, headers: headers)
        }
    }

    /// Stops the transfer thread of a multi transport, if there is one.
    func close() {
        multi?.shutdown()
    }

    func client(_ index: Int) -> Result<TMPClient, ActivationError> { clients[index] }

    func attempt(_ deeplink: Deeplink, text: String, device: String?) -> Attempt {
        Attempt(
            deeplink: deeplink, deeplinkHash: AuditLog.deeplinkHash(text, key: hashKey), device: device,
            requestID: Activator.makeRequestID(), clock: activator.clock
        )
    }

    /// One activation on worker `client`'s connection.
    func run(_ deeplink: Deeplink, text: String, device: String?, client index: Int) async -> ActivationResult {
        let attempt = attempt(deeplink, text: text, device: device)
        var logger = activator.logger
        logger[metadataKey: "request-id"] = "\(attempt.requestID)"
        let prepared = clients[index]
        do {
            var result: ActivationResult
            switch try await committer.run({ db in try attempt.start(prepared: prepared, db) }) {
            case .stopped(let stopped):
                result = stopped
            case .sending(let record, let client, var started):
                logger.info("activation.sending", metadata: ["serial": "\(Mask.identifier(record.serialNumber))", "attempt": "\(started.auditID ?? 0)"])
                let began = ContinuousClock.now
                let answer = await client.activate(tokenUniqueReference: record.deviceAccountIdentifier, requestID: attempt.requestID)
                let latency = ContinuousClock.now - began
                started.apply(answer)
                let finished = started
                result = try await committer.run { db in try attempt.finish(record, result: finished, latency: latency, db) }
            }
            logger.info("activation.finished", metadata: ["outcome": "\(result.outcome.rawValue)", "error": "\(result.error?.code ?? "-")"])
            return result
        } catch {
            return ActivationResult(outcome: .error, error: Activator.coded(error))
        }
    }
}

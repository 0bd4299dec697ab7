import ErrorCodes
import Foundation
import HTTPTransport
import HexCoding
import Logging
import OnboardingCore
import WalletModel

/// The activation pipeline: deeplink → wallet lookup → user check → audit "started" →
/// POST → outcome → audit "finished" and pass state. ``activate(deeplink:device:dryRun:)``
/// runs it once; ``ActivationRuntime/batch(_:window:decode:isStopping:progress:emit:)`` streams
/// many lines through the runtime.
/// The decisions are ``ActivationMachine``'s; this type and ``Session`` perform them.
public struct Activator: Sendable {
    let settings: ActivationSettings
    /// The database the attempts are kept in, opened per activation or batch.
    let store: any StoreDriver
    private let environment: [String: String]
    let transports: TransportFactory
    private let userCheck: any UserActivationCheck
    let logger: Logger
    let clock: @Sendable () -> Timestamp
    /// Waits between tries of a request that never left (injected: tests do not sleep).
    let sleep: @Sendable (Duration) async -> Void

    /// - Parameters:
    ///   - store: the database of the wallet and the audit.
    ///   - transports: libcurl by default; a test double in tests.
    ///   - userCheck: asked (once) only when `onboarding.require-finished-user-activation` is on.
    ///   - clock, sleep: injected for tests.
    public init(
        settings: ActivationSettings, store: any StoreDriver, environment: [String: String],
        transports: TransportFactory = .curl,
        userCheck: any UserActivationCheck,
        logger: Logger = Logger(label: "tokenctl.activation"),
        clock: @escaping @Sendable () -> Timestamp = Timestamp.now,
        sleep: @escaping @Sendable (Duration) async -> Void = Activator.pause
    ) {
        self.settings = settings
        self.store = store
        self.environment = environment
        self.transports = transports
        self.userCheck = userCheck
        self.logger = logger
        self.clock = clock
        self.sleep = sleep
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
            return .refused(error)
        }
        do {
            // A one-worker runtime, its "finished" write committed before the answer.
            var options = ActivationRuntime.Options(workers: 1)
            options.defersFinish = false
            let runtime = try await ActivationRuntime(activator: self, options: options)
            let result = await runtime.activate(deeplink, text: text, device: device, dryRun: dryRun, requestID: nil)
            await runtime.close()
            return result ?? .notRun(ActivationRuntime.stopping)
        } catch {
            return ActivationResult(outcome: .error, error: .coded(error))
        }
    }

    /// Suspends the calling task for `duration`.
    public static func pause(_ duration: Duration) async {
        try? await Task.sleep(for: duration)
    }

    var parser: DeeplinkParser {
        DeeplinkParser(formats: settings.deeplinkFormats)
    }

    /// What must hold before anything is sent, asked once per process: a usable TMP
    /// configuration (the authentication headers) and, when required, a finished user
    /// activation, answered on the process's one database handle (which also keeps the
    /// onboarding core's state, on either backend).
    func preflight(store: any OnboardingRecords) async -> Result<[(name: String, value: String)], ActivationError> {
        let headers = self.headers()
        guard case .success = headers else { return headers }
        if let refusal = await gates(store: store) { return .failure(refusal) }
        return headers
    }

    /// TMP's authentication headers, read from the configured secret files.
    func headers() -> Result<[(name: String, value: String)], ActivationError> {
        do {
            return .success(try TMPCredentials.headers(settings.tmp, environment: environment))
        } catch {
            return .failure(ActivationError(error))
        }
    }

    /// The gates on the user (`onboarding.require-finished-user-activation`,
    /// `onboarding.require-pin-login-within-seconds`): why an activation may not be sent
    /// now, or nil. A resident service asks before each activation: a login's freshness
    /// changes with time, and a user activation may finish while it runs.
    func gates(store: any OnboardingRecords) async -> ActivationError? {
        do {
            if settings.onboarding.requiresFinishedUserActivation,
                case .notFinished(let reason, let nextStep) = try await userCheck.status(store: store)
            {
                return ActivationError(
                    code: .userActivationRequired, message: "user activation required: \(reason)", nextStep: nextStep)
            }
            if let seconds = settings.onboarding.pinLoginWithinSeconds {
                let now = Date(timeIntervalSince1970: Double(clock().milliseconds) / 1000)
                if case .notFinished(let reason, let nextStep) = try await PINLoginGate.status(
                    records: store, instanceID: settings.onboarding.instanceID, within: seconds, now: now)
                {
                    return ActivationError(
                        code: .loginRequired, message: "PIN login required: \(reason)", nextStep: nextStep)
                }
            }
            return nil
        } catch {
            // The checks name their own failures (onboarding.unreachable, config.*, storage.*).
            return .coded(error)
        }
    }

    /// Whether any gate is configured (a resident service then asks before each activation).
    var hasGates: Bool {
        settings.onboarding.requiresFinishedUserActivation || settings.onboarding.pinLoginWithinSeconds != nil
    }

    /// The TMP client every slot of a runtime sends on, its transport keeping a connection
    /// alive for each of the `slots`.
    func makeClient(slots: Int, headers: [(name: String, value: String)]) -> Result<TMPClient, ActivationError> {
        var options = settings.tmp.connection.transportOptions
        options.keptConnections = max(options.keptConnections, slots)
        do throws(TransportError) {
            return .success(
                TMPClient(
                    transport: try transports.transport(options), baseURL: settings.tmp.baseURL,
                    authentication: headers))
        } catch {
            return .failure(TMPAnswer(error).error ?? ActivationError(code: .tmpTransport, message: error.words))
        }
    }

    /// A random version 4 UUID.
    static func makeRequestID() -> String {
        // Two draws from the system generator (one getrandom each), not one per byte.
        var generator = SystemRandomNumberGenerator()
        var bytes = withUnsafeBytes(of: (generator.next() as UInt64, generator.next() as UInt64)) { Array($0) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        // 8-4-4-4-12 hex digits, written as bytes: this runs once per line of a batch.
        let hex = Array(Hex.encode(bytes).utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, digit) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append(UInt8(ascii: "-")) }
            text.append(digit)
        }
        return String(decoding: text, as: UTF8.self)
    }
}

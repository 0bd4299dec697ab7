import ErrorCodes
import Foundation
import Logging
import ServiceAPI
import Synchronization
import TokenActivation
import WalletModel

/// What every listener of one `tokenctl serve` shares: the warm pipeline, the database's
/// driver for health checks, admission, the idempotency keys, the metrics, and whether
/// the service is draining.
final class ActivationService: Sendable {
    let pipeline: ResidentPipeline
    let driver: any StoreDriver
    let metrics: ServiceMetrics
    let admission: Admission
    let idempotency: IdempotencyKeys
    let logger: Logger
    private let draining = Atomic<Bool>(false)
    /// The Idempotency-Keys whose requests run in this process now: a repeat of one is in
    /// flight however old its claim.
    private let runningKeys = Mutex<Set<String>>([])

    init(pipeline: ResidentPipeline, driver: any StoreDriver, metrics: ServiceMetrics, admission: Admission, idempotency: IdempotencyKeys, logger: Logger) {
        self.pipeline = pipeline
        self.driver = driver
        self.metrics = metrics
        self.admission = admission
        self.idempotency = idempotency
        self.logger = logger
    }

    /// From now on `/readyz` answers 503.
    func startDraining() {
        draining.store(true, ordering: .releasing)
    }

    var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// Runs `body` with `key` marked as running in this process.
    func running<T>(key: String, _ body: () async -> T) async -> T {
        runningKeys.withLock { _ = $0.insert(key) }
        defer { runningKeys.withLock { _ = $0.remove(key) } }
        return await body()
    }

    /// Whether a request with `key` runs in this process now.
    func isRunning(key: String) -> Bool {
        runningKeys.withLock { $0.contains(key) }
    }

    /// One activation through the pipeline, measured.
    /// - Parameter requestID: the id its attempt is audited under (an Idempotency-Key's).
    func activate(_ request: ActivationRequest, requestID: String? = nil) async -> ActivationResult {
        metrics.activationStarted()
        let start = ContinuousClock.now
        let result = await pipeline.activate(deeplink: request.deeplink, device: request.device, dryRun: request.dryRun, requestID: requestID)
        metrics.activationFinished(result, after: .now - start)
        log(result)
        return result
    }

    /// A failure of a server or of the database is logged at warning (a server's: the
    /// request was sent or may have been) or error (the database, the configuration), as
    /// `journalctl -u tokenctl -p warning` shows it; identifiers masked.
    private func log(_ result: ActivationResult) {
        guard let error = result.error else { return }
        let level: Logger.Level
        switch result.exitStatus {
        case .unavailable, .protocolError: level = .warning
        case .databaseError, .configuration: level = .error
        default: return
        }
        logger.log(level: level, "activation.failed", metadata: [
            "code": "\(error.code.rawValue)", "outcome": "\(result.outcome.rawValue)", "request-id": "\(result.requestID ?? "-")",
            "serial": "\(result.serialNumber.map { Mask.identifier($0) } ?? "-")", "audit": "\(result.auditID.map(String.init) ?? "-")",
        ])
    }

    /// Runs blocking database work on a thread of its own, off Swift's cooperative pool
    /// (the drivers block their calling thread until the database answers).
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = "tokenctl.service.database"
            thread.start()
        }
    }
}

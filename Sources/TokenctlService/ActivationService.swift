import ErrorCodes
import Foundation
import Logging
import ServiceAPI
import Synchronization
import TextFormats
import TokenActivation
import WalletModel

/// What every listener of one `tokenctl serve` shares: the activation runtime, the
/// database's driver for health checks, the idempotency keys, the metrics, and whether
/// the service is draining.
final class ActivationService: Sendable {
    let runtime: ActivationRuntime
    let driver: any StoreDriver
    let metrics: ServiceMetrics
    let idempotency: IdempotencyKeys
    let logger: Logger
    private let draining = Atomic<Bool>(false)
    /// The Idempotency-Keys whose requests run in this process now: a repeat of one is in
    /// flight however old its claim.
    private let runningKeys = Mutex<Set<String>>([])
    /// The Idempotency-Keys whose request ended in this process without what it ended with
    /// written (the database failed then), and what to write: a repeat may take such a claim
    /// over at once, though its owner (this process) lives, and ``settleClaims()`` writes them
    /// once the database accepts writes again.
    private let unsettledKeys = Mutex<[String: ClaimSettlement]>([:])
    /// Why the audit log is cut (DESIGN §10), while it is: no checkpoint is signed, and
    /// `/readyz` names `audit`.
    private let auditCutDetail = Mutex<String?>(nil)

    init(
        runtime: ActivationRuntime, driver: any StoreDriver, metrics: ServiceMetrics, idempotency: IdempotencyKeys,
        logger: Logger
    ) {
        self.runtime = runtime
        self.driver = driver
        self.metrics = metrics
        self.idempotency = idempotency
        self.logger = logger
    }

    /// From now on `/readyz` answers 503.
    func startDraining() {
        draining.store(true, ordering: .releasing)
    }

    var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// Why the audit log is cut, or nil.
    var auditCut: String? { auditCutDetail.withLock { $0 } }

    /// Marks the log cut; answers whether it was not before.
    func markAuditCut(_ detail: String) -> Bool {
        auditCutDetail.withLock { current in
            defer { current = detail }
            return current == nil
        }
    }

    /// Clears the mark; answers whether the log was marked cut.
    func clearAuditCut() -> Bool {
        auditCutDetail.withLock { current in
            defer { current = nil }
            return current != nil
        }
    }

    /// Runs `body` with `key` marked as running in this process.
    func running<T>(key: String, _ body: () async -> T) async -> T {
        runningKeys.withLock { _ = $0.insert(key) }
        defer { runningKeys.withLock { _ = $0.remove(key) } }
        return await body()
    }

    /// Writes what `key`'s request ended with; when the database refuses it, keeps it for
    /// ``settleClaims()``.
    /// - Returns: the database's error, when it refused.
    @discardableResult
    func settle(key: String, _ settlement: ClaimSettlement) async -> (any Error)? {
        do {
            try await idempotency.settle(key: key, settlement)
            unsettledKeys.withLock { _ = $0.removeValue(forKey: key) }
            return nil
        } catch {
            unsettledKeys.withLock { $0[key] = settlement }
            return error
        }
    }

    /// Writes the claims' settlements the database refused before; those it refuses again
    /// are kept for the next call.
    /// - Returns: how many were written.
    @discardableResult
    func settleClaims() async -> Int {
        var written = 0
        for (key, settlement) in unsettledKeys.withLock({ $0 }) {
            do {
                try await idempotency.settle(key: key, settlement)
            } catch {
                break
            }
            // A repeat that took the claim over since has settled it itself.
            unsettledKeys.withLock { keys in
                if keys[key] == settlement { keys.removeValue(forKey: key) }
            }
            written += 1
        }
        return written
    }

    /// Whether `key`'s request ended here without what it ended with written.
    func endedUnanswered(_ key: String) -> Bool {
        unsettledKeys.withLock { $0[key] != nil }
    }

    /// Whether a request with `key` runs in this process now.
    func isRunning(key: String) -> Bool {
        runningKeys.withLock { $0.contains(key) }
    }

    /// One activation in the runtime's one admission.
    /// - Parameter requestID: the id its attempt is audited under (an Idempotency-Key's).
    /// - Returns: nil, with nothing run, when the queue is full.
    func activate(_ request: ActivationRequest, requestID: String? = nil) async -> ActivationResult? {
        await runtime.activate(
            deeplink: request.deeplink, device: request.device, dryRun: request.dryRun, requestID: requestID)
    }

    /// The open database, for the reads beside the activations.
    var store: any TokenStore { runtime.database }
}

/// Every activation the runtime runs, measured and, when a server or the database failed,
/// logged.
struct ActivationLog: ActivationObserver {
    let metrics: ServiceMetrics
    let logger: Logger

    func started() {
        metrics.activationStarted()
    }

    func finished(_ result: ActivationResult, after duration: Duration) {
        metrics.activationFinished(result, after: duration)
        log(result)
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
        logger.log(
            level: level, "activation.failed",
            metadata: [
                "code": "\(error.code.rawValue)", "outcome": "\(result.outcome.rawValue)",
                "request-id": "\(result.requestID ?? "-")",
                "serial": "\(result.serialNumber.map { Mask.identifier($0) } ?? "-")",
                "audit": "\(result.auditID.map(String.init) ?? "-")",
            ])
    }
}

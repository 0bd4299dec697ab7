import ErrorCodes
import Logging
import ServiceLifecycle
import TokenActivation
import WalletModel

/// Writes the answers and Idempotency-Key claims the database refused once it accepts writes
/// again, and closes the
/// attempts left open by processes that are gone (DESIGN §8, "Lifecycle"): at
/// start, before the first request is admitted, and then every `interval`, so that an
/// attempt of a host that died is closed soon after its lease expires (PostgreSQL) and one of
/// a CLI process killed beside the service soon after it died (SQLite). Each is closed as
/// UNKNOWN `activation.interrupted` and its pass moves back to `requiresActivation`;
/// nothing is sent.
struct InterruptedAttemptRecovery: Service, CustomStringConvertible {
    var description: String { "InterruptedAttemptRecovery" }

    let service: ActivationService
    let interval: Duration
    let logger: Logger

    /// Closes what is closable now; a failure is logged and tried again at the next round.
    /// - Returns: the attempts closed.
    @discardableResult
    static func closeNow(_ service: ActivationService, logger: Logger) async -> Int {
        let runtime = service.runtime
        do {
            let closed = try await runtime.closeInterrupted()
            if !closed.isEmpty {
                logger.warning(
                    "service.interruptedAttemptsClosed",
                    metadata: [
                        "attempts": "\(closed.map(String.init).joined(separator: ","))",
                        "detail":
                            "closed as UNKNOWN (activation.interrupted): their process is gone; TMP may have activated the tokens",
                    ])
            }
            return closed.count
        } catch {
            logger.warning(
                "service.recoveryFailed",
                metadata: ["error": "\((error as? any CodedError)?.code.rawValue ?? "storage.io")"])
            return 0
        }
    }

    /// Every second, the answers the database refused are written again (a pass is usable
    /// within a second of the database's recovery); every `interval`, dead owners' attempts
    /// are closed.
    func run() async throws {
        var lastClosing = ContinuousClock.now
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            if Task.isShuttingDownGracefully || Task.isCancelled { break }
            let runtime = service.runtime
            // A round waits for the database no longer than a request would (a failover).
            await StoreDeadline.serving(windowMilliseconds: service.driver.reconnectWindowMilliseconds) {
                if !runtime.unwrittenAttempts.isEmpty {
                    await runtime.writeUnwritten()
                }
                let settled = await service.settleClaims()
                if settled > 0 {
                    logger.notice("service.idempotencySettled", metadata: ["keys": "\(settled)"])
                }
                if ContinuousClock.now - lastClosing >= interval {
                    lastClosing = .now
                    await Self.closeNow(service, logger: logger)
                }
            }
        }
    }
}

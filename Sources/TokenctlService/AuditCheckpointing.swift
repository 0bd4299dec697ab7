import ErrorCodes
import Logging
import ServiceLifecycle
import TokenActivation
import TransparencyLog
import WalletModel

/// Signs a checkpoint of the audit log at start and then every
/// `audit.checkpoint-interval-seconds` when the tree grew, and once more at a clean exit,
/// after the listeners drained (DESIGN §9); with `audit.witnesses`, asks every witness to
/// cosign the newest one each time (so a rollback shows within one interval). Runs when
/// `audit.origin` is set; a failure is logged and counted, and tried again next time. A log
/// that was cut (DESIGN §10) is signed no more while it stays cut: `/readyz` names `audit`.
struct AuditCheckpointing: Service, CustomStringConvertible {
    var description: String { "AuditCheckpointing" }

    let service: ActivationService
    let origin: String
    let signer: NoteSigner
    let interval: Duration
    let publisher: WitnessPublisher?
    let logger: Logger

    /// The final publication's share of the stop: a third of the unit's TimeoutStopSec=90,
    /// so that silent witnesses cannot hold the stop past it.
    static let exitPublishBudget = Duration.seconds(30)

    func run() async throws {
        var signed: Int64 = -1
        // The largest tree this service signed: the rows must still make it, though a
        // failover to a standby that lacked them took the stored checkpoint with them.
        var largest: TransparencyLog.Head?
        signed = await sign(unless: signed, largest: &largest)
        await publish(signed)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            if Task.isCancelled { return }
            if Task.isShuttingDownGracefully { break }
            signed = await sign(unless: signed, largest: &largest)
            await publish(signed)
        }
        if !Task.isCancelled {
            let deadline = ContinuousClock.now + Self.exitPublishBudget
            signed = await sign(unless: signed, largest: &largest)
            await publish(signed, deadline: deadline)
        }
    }

    /// Asks every witness to cosign the checkpoint of `size` rows (none while the log is cut).
    private func publish(_ size: Int64, deadline: ContinuousClock.Instant? = nil) async {
        guard let publisher, size >= 0, service.auditCut == nil else { return }
        do {
            let stored = try await TransparencyLog.signedCheckpoint(size: size, in: service.store)
            let outcomes = await publisher.publish(stored, in: service.store, deadline: deadline)
            for outcome in outcomes {
                switch outcome.result {
                case .success:
                    logger.info(
                        "audit.checkpointCosigned", metadata: ["size": "\(size)", "witness": "\(outcome.witness.url)"])
                case .failure(let error):
                    logger.warning(
                        "audit.witnessFailed",
                        metadata: [
                            "size": "\(size)", "witness": "\(outcome.witness.url)", "error": "\(error.code.rawValue)",
                            "detail": "\(error.message)",
                            "next": "asked again at the next interval",
                        ])
                }
            }
        } catch {
            logger.warning(
                "audit.witnessFailed",
                metadata: ["size": "\(size)", "error": "\((error as? any CodedError)?.code.rawValue ?? "storage.io")"])
        }
    }

    /// Signs unless the tree still has `size` rows; answers the size signed (or still held;
    /// -1 while the log is cut, so that the next interval checks again). `largest` is the
    /// largest tree signed so far, which the rows must still make.
    private func sign(unless size: Int64, largest: inout TransparencyLog.Head?) async -> Int64 {
        let (origin, signer) = (self.origin, self.signer)
        let window = service.driver.reconnectWindowMilliseconds
        do {
            let store = service.store
            let before = largest
            // A round waits for the database no longer than a request would (a failover).
            let signed: TransparencyLog.Signed? = try await StoreDeadline.serving(windowMilliseconds: window) {
                try await AuditTree(store: store).size() == size
                    ? nil
                    : try await TransparencyLog.checkpoint(
                        in: store, origin: origin, signer: signer, signedBefore: before)
            }
            if service.clearAuditCut() {
                logger.notice(
                    "audit.logConsistent",
                    metadata: ["detail": "the log extends its checkpoints again; signing resumes"])
            }
            guard let signed else { return size }
            if Int64(signed.checkpoint.size) >= largest?.size ?? 0 {
                largest = TransparencyLog.Head(size: Int64(signed.checkpoint.size), root: signed.checkpoint.rootHash)
            }
            service.metrics.auditCheckpoint(size: Int64(signed.checkpoint.size), isNew: signed.isNew)
            if signed.isNew { logger.info("audit.checkpointSigned", metadata: ["size": "\(signed.checkpoint.size)"]) }
            return Int64(signed.checkpoint.size)
        } catch let error as AuditError where error.code == .auditInconsistent {
            service.metrics.auditCheckpoint(size: nil)
            if service.markAuditCut(error.message) {
                logger.critical(
                    "audit.logCut", metadata: ["error": "\(error.code.rawValue)", "detail": "\(error.message)"])
            }
            return -1
        } catch {
            service.metrics.auditCheckpoint(size: nil)
            logger.warning(
                "audit.checkpointFailed",
                metadata: ["error": "\((error as? any CodedError)?.code.rawValue ?? "storage.io")"])
            return size
        }
    }
}

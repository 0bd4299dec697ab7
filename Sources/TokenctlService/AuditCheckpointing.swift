import ErrorCodes
import Logging
import ServiceLifecycle
import TokenActivation
import WalletModel

/// Signs a checkpoint of the audit log every `audit.checkpoint-interval-seconds` when the
/// tree grew, and once more at a clean exit, after the listeners drained (DESIGN §9). Runs
/// when `audit.origin` is set; a failure is logged and counted, and tried again next time.
struct AuditCheckpointing: Service, CustomStringConvertible {
    var description: String { "AuditCheckpointing" }

    let service: ActivationService
    let origin: String
    let signer: NoteSigner
    let interval: Duration
    let logger: Logger

    func run() async throws {
        var signed: Int64 = -1
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            if Task.isCancelled { return }
            signed = await sign(unless: signed)
        }
        if !Task.isCancelled { _ = await sign(unless: signed) }
    }

    /// Signs unless the tree still has `size` rows; answers the size signed (or still held).
    private func sign(unless size: Int64) async -> Int64 {
        let (origin, signer) = (self.origin, self.signer)
        do {
            let checkpoint = try await service.database { store -> Checkpoint? in
                guard try AuditTree(store: store).size() != size else { return nil }
                return try TransparencyLog.checkpoint(in: store, origin: origin, signer: signer).checkpoint
            }
            guard let checkpoint else { return size }
            service.metrics.auditCheckpoint(size: Int64(checkpoint.size))
            logger.info("audit.checkpointSigned", metadata: ["size": "\(checkpoint.size)"])
            return Int64(checkpoint.size)
        } catch {
            service.metrics.auditCheckpoint(size: nil)
            logger.warning("audit.checkpointFailed", metadata: ["error": "\((error as? any CodedError)?.code.rawValue ?? "storage.io")"])
            return size
        }
    }
}

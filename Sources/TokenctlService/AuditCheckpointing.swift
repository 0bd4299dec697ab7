import ErrorCodes
import Logging
import ServiceLifecycle
import TokenActivation
import WalletModel

/// Signs a checkpoint of the audit log every `audit.checkpoint-interval-seconds` when the
/// tree grew, and once more at a clean exit, after the listeners drained (DESIGN §9); with
/// `audit.witnesses`, publishes each to them. Runs when `audit.origin` is set; a failure is
/// logged and counted, and tried again next time.
struct AuditCheckpointing: Service, CustomStringConvertible {
    var description: String { "AuditCheckpointing" }

    let service: ActivationService
    let origin: String
    let signer: NoteSigner
    let interval: Duration
    let publisher: WitnessPublisher?
    let logger: Logger

    func run() async throws {
        var signed: Int64 = -1, published: Int64 = -1
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            if Task.isCancelled { return }
            signed = await sign(unless: signed)
            published = await publish(signed, unless: published)
        }
        if !Task.isCancelled {
            signed = await sign(unless: signed)
            _ = await publish(signed, unless: published)
        }
    }

    /// Publishes the checkpoint of `size` rows unless every witness cosigned it already;
    /// answers the size every witness cosigned (or still `done`).
    private func publish(_ size: Int64, unless done: Int64) async -> Int64 {
        guard let publisher, size >= 0, size != done else { return done }
        do {
            let stored = try await service.database { try TransparencyLog.signedCheckpoint(size: size, in: $0) }
            let outcomes = await publisher.publish(stored, through: ServiceStoreAccess(service: service))
            var all = true
            for outcome in outcomes {
                switch outcome.result {
                case .success:
                    logger.info("audit.checkpointCosigned", metadata: ["size": "\(size)", "witness": "\(outcome.witness.url)"])
                case .failure(let error):
                    all = false
                    logger.warning("audit.witnessFailed", metadata: ["size": "\(size)", "witness": "\(outcome.witness.url)", "error": "\(error.code.rawValue)", "detail": "\(error.message)"])
                }
            }
            return all ? size : done
        } catch {
            logger.warning("audit.witnessFailed", metadata: ["size": "\(size)", "error": "\((error as? any CodedError)?.code.rawValue ?? "storage.io")"])
            return done
        }
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

/// The service's workers as the way a publication reaches the database.
struct ServiceStoreAccess: AuditStoreAccess {
    let service: ActivationService

    func run<T: Sendable>(_ body: @escaping @Sendable (any TokenStore) throws -> T) async throws -> T {
        try await service.database(body)
    }
}

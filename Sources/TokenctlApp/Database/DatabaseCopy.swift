import Logging
import TokenActivation
import TokenctlConfiguration
import TransparencyLog
import WalletModel

/// What `tokenctl db copy` moved.
public struct CopyReport: Sendable, Equatable {
    public let passes: Int
    public let auditRows: Int
    /// Rows of the onboarding core's state (device activation, process, login user, verification).
    public let stateRows: Int
    /// The target's audit chain, verified after the copy.
    public let verifiedRows: Int
    /// The audit log's signed checkpoints and the witnesses' cosignatures on them, each
    /// checkpoint verified against the target's rows after the copy.
    public let checkpoints: Int
    public let cosignatures: Int
}

/// `tokenctl db copy`: moves a database's wallet, audit and onboarding state between SQLite
/// and PostgreSQL, in one transaction on the target.
/// The target must be empty; audit rows keep their order and hashes (each one checked as it
/// is written), the deeplink hash key goes along, and the target's chain is verified after;
/// then the transparency log's checkpoints and cosignatures go (the tree itself is made
/// again from the rows), and each checkpoint is verified against the target's rows.
/// Run it with no handler writing the source.
public struct DatabaseCopy: Sendable {
    let source: any StoreDriver
    let target: any StoreDriver
    let logger: Logger

    public init(from source: Settings, to target: Settings, logger: Logger = Logger(label: "tokenctl.database")) {
        self.init(from: source.store, to: target.store, logger: logger)
    }

    public init(
        from source: any StoreDriver, to target: any StoreDriver, logger: Logger = Logger(label: "tokenctl.database")
    ) {
        self.source = source
        self.target = target
        self.logger = logger
    }

    public func run() async throws -> CopyReport {
        guard source.backend != target.backend else {
            throw StorageError(
                .storageUnsupported,
                "db copy moves between SQLite and PostgreSQL: one side must be a file (--database), the other a postgres:// URL"
            )
        }
        // The source's checkpoints are checked against its rows before anything is written:
        // a log that was cut or rewritten is not copied (the target stays empty).
        _ = try await TransparencyLog(store: source, logger: logger).verifyStored()
        // The target's schema is made first (a new PostgreSQL database has none).
        _ = try await target.migrate(logger: logger)
        let copied = try await source.reading(logger: logger) { source in
            let expected = try await source.counts()
            let copy = try await source.copySource(pageSize: Self.pageSize)
            let copied = try await target.using(logger: logger) { target in try await target.load(copy) }
            guard (copied.passes, copied.auditRows) == expected else {
                throw StorageError(
                    .storageIO,
                    "the source changed during the copy (\(expected.passes) records and \(expected.auditRows) audit rows before, \(copied.passes) and \(copied.auditRows) read); stop the handlers and copy again into an empty database"
                )
            }
            return copied
        }
        let (rows, broken) = try await Audit(store: target, logger: logger).verify()
        if let broken {
            throw AuditError.chainBroken(broken)
        }
        let (checkpoints, cosignatures) = try await source.reading(logger: logger) {
            (try await $0.storedCheckpoints(), try await $0.storedCosignatures())
        }
        try await target.using(logger: logger) { target in
            for checkpoint in checkpoints { try await target.storeCheckpoint(checkpoint) }
            for cosignature in cosignatures { try await target.storeCosignature(cosignature) }
        }
        _ = try await TransparencyLog(store: target, logger: logger).verifyStored()
        logger.info(
            "database.copied",
            metadata: [
                "passes": "\(copied.passes)", "audit-rows": "\(copied.auditRows)", "state-rows": "\(copied.stateRows)",
            ])
        return CopyReport(
            passes: copied.passes, auditRows: copied.auditRows, stateRows: copied.stateRows, verifiedRows: rows,
            checkpoints: checkpoints.count, cosignatures: cosignatures.count
        )
    }

    /// Rows per page read from the source: each page is its own read, so the rows can go to
    /// the target's transaction (where a cursor of an open read cannot be used).
    static let pageSize = 10_000
}

import Logging
import WalletModel

/// A PostgreSQL database as a ``StoreDriver``: one database a fleet of hosts shares.
public struct PostgresDriver: StoreDriver {
    public let options: PostgresOptions

    public init(options: PostgresOptions) {
        self.options = options
    }

    public var backend: String { "postgresql" }
    public var location: String { options.displayURL }

    /// Connects and checks that the schema is this binary's.
    public func open(logger: Logger) throws -> any TokenStore {
        try PostgresStore(options: options, logger: logger)
    }

    public func status(logger: Logger) throws -> DatabaseStatus {
        let store = try PostgresStore(options: options, logger: logger, checkingSchema: false)
        defer { store.close() }
        return store.databaseStatus(try store.schemaStatus())
    }

    public func migrate(logger: Logger) throws -> [String] {
        let store = try PostgresStore(options: options, logger: logger, checkingSchema: false)
        defer { store.close() }
        let applied = try store.migrate()
        logger.info("database.migrated", metadata: ["applied": "\(applied.count)"])
        return applied
    }
}

extension PostgresStore: TokenStore {
    public func ledger() -> any AttemptLedger {
        PostgresLedger(store: self)
    }

    /// Where the schema stands, read on the store's pool and awaited.
    public func databaseStatus() async throws -> DatabaseStatus {
        databaseStatus(try await schemaStatus())
    }

    func databaseStatus(_ status: SchemaStatus) -> DatabaseStatus {
        DatabaseStatus(
            backend: "postgresql", location: options.displayURL, applied: status.applied, known: status.known,
            pending: status.pending)
    }
}

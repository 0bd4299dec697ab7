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
    public func open(logger: Logger) async throws -> any TokenStore {
        try await PostgresStore(options: options, logger: logger)
    }

    public func status(logger: Logger) async throws -> DatabaseStatus {
        let store = try await PostgresStore(options: options, logger: logger, checkingSchema: false)
        do {
            let status = store.databaseStatus(try await store.schemaStatus())
            await store.close()
            return status
        } catch {
            await store.close()
            throw error
        }
    }

    public func migrate(logger: Logger) async throws -> [String] {
        let store = try await PostgresStore(options: options, logger: logger, checkingSchema: false)
        do {
            let applied = try await store.migrate()
            await store.close()
            logger.info("database.migrated", metadata: ["applied": "\(applied.count)"])
            return applied
        } catch {
            await store.close()
            throw error
        }
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

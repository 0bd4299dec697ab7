import ErrorCodes
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
    public var reconnectWindowMilliseconds: Int { options.reconnectWindowMilliseconds }

    /// Connects to the primary and checks that the schema is this binary's. A URL that asks
    /// for any host or a standby is refused (`config.invalidValue`): this store writes.
    public func open(logger: Logger) async throws -> any TokenStore {
        guard options.targetSessionAttributes == .readWrite else {
            throw ConfigurationError.unusableValue(
                key: "database.url",
                "target_session_attrs=\(options.targetSessionAttributes.rawValue) serves only the commands that read (audit list, show, verify, prove and consistency; wallet list, show and export; db status), and this one writes: use target_session_attrs=read-write, or leave it out"
            )
        }
        return try await PostgresStore(options: options, logger: logger)
    }

    /// Connects to the host `target_session_attrs` asks for and checks the schema.
    public func openForReading(logger: Logger) async throws -> any TokenStore {
        try await PostgresStore(options: options, logger: logger)
    }

    public func status(logger: Logger) async throws -> DatabaseStatus {
        let store = try await PostgresStore(options: options, logger: logger, checkingSchema: false)
        do {
            var status = store.databaseStatus(try await store.schemaStatus())
            status.replication = try await store.replication()
            await store.close()
            return status
        } catch {
            await store.close()
            throw error
        }
    }

    public func migrate(logger: Logger) async throws -> [String] {
        guard options.targetSessionAttributes == .readWrite else {
            throw ConfigurationError.unusableValue(
                key: "database.url",
                "target_session_attrs=\(options.targetSessionAttributes.rawValue) serves only the commands that read, and db migrate writes: use target_session_attrs=read-write, or leave it out"
            )
        }
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

import Logging
import PostgresStorage
import Storage

/// Where a database's schema stands (`tokenctl db status`).
public struct DatabaseStatus: Sendable, Equatable {
    /// `sqlite` or `postgresql`.
    public let backend: String
    /// The file, or the URL without a password.
    public let location: String
    public let applied: Int
    public let known: Int
    /// Migrations `tokenctl db migrate` would apply.
    public let pending: [String]

    public var isCurrent: Bool { applied == known }
}

/// The library side of `tokenctl db …`: schema status and migration on either database.
/// (Copies between them: ``DatabaseCopy``.)
public struct DatabaseAdmin: Sendable {
    let settings: Settings
    let logger: Logger

    public init(settings: Settings, logger: Logger = Logger(label: "tokenctl.database")) {
        self.settings = settings
        self.logger = logger
    }

    public func status() throws -> DatabaseStatus {
        if let postgres = settings.postgres {
            let store = try PostgresStore(options: postgres, logger: logger, checkingSchema: false)
            defer { store.close() }
            let status = try store.schemaStatus()
            return DatabaseStatus(backend: "postgresql", location: postgres.displayURL, applied: status.applied, known: status.known, pending: status.pending)
        }
        // SQLite applies its migrations when it opens the file.
        return try Store.using(settings.database, logger: logger) { store in
            let applied = try store.appliedMigrations()
            let known = Store.knownMigrations
            return DatabaseStatus(
                backend: "sqlite", location: settings.database.path, applied: applied.count, known: known.count,
                pending: known.filter { !applied.contains($0) }
            )
        }
    }

    /// Applies the missing migrations.
    /// - Returns: the names of those applied (none when the schema was current).
    public func migrate() throws -> (applied: [String], status: DatabaseStatus) {
        if let postgres = settings.postgres {
            let store = try PostgresStore(options: postgres, logger: logger, checkingSchema: false)
            defer { store.close() }
            let applied = try store.migrate()
            logger.info("database.migrated", metadata: ["applied": "\(applied.count)"])
            return (applied, try status())
        }
        let before = try Store.appliedMigrations(atPath: settings.database.path) ?? []
        let status = try status()
        let applied = Store.knownMigrations.filter { !before.contains($0) }
        return (applied, status)
    }
}

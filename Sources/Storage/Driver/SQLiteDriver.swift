import Logging
import WalletModel

/// The SQLite file as a ``StoreDriver``: one host's database.
public struct SQLiteDriver: StoreDriver {
    public let options: StoreOptions

    public init(options: StoreOptions) {
        self.options = options
    }

    public var backend: String { "sqlite" }
    public var location: String { options.path }

    /// Opens the file on a queue of its own: opening reads the file and may migrate it, which
    /// no cooperative thread waits for.
    public func open(logger: Logger) async throws -> any TokenStore {
        try await Store.opened(options: options, logger: logger)
    }

    /// SQLite applies its migrations when it opens the file: an open file is current.
    /// Reports only: an existing file is read as it is, never migrated (`db migrate` does
    /// that), so an operator can look before upgrading, also on a file they may only read.
    public func status(logger: Logger) async throws -> DatabaseStatus {
        if let applied = try Store.appliedMigrations(atPath: options.path) {
            return Store.status(path: options.path, applied: applied)
        }
        return try await openedStatus(logger: logger)
    }

    /// Opens (creating a missing file at the current schema, migrating an older one) and
    /// reports.
    private func openedStatus(logger: Logger) async throws -> DatabaseStatus {
        let store = try await Store.opened(options: options, logger: logger)
        return try await store.closing { try store.currentStatus() }
    }

    public func migrate(logger: Logger) async throws -> [String] {
        let before = try Store.appliedMigrations(atPath: options.path) ?? []
        _ = try await openedStatus(logger: logger)
        return Store.knownMigrations.filter { !before.contains($0) }
    }
}

extension StoreSource {
    /// The SQLite file the options name, opened for each call.
    public static func options(_ options: StoreOptions) -> StoreSource {
        SQLiteDriver(options: options).stateSource
    }
}

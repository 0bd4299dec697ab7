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

    public func open(logger: Logger) throws -> any TokenStore {
        try Store(options: options, logger: logger)
    }

    /// SQLite applies its migrations when it opens the file: an open file is current.
    /// Reports only: an existing file is read as it is, never migrated (`db migrate` does
    /// that), so an operator can look before upgrading, also on a file they may only read.
    public func status(logger: Logger) throws -> DatabaseStatus {
        if let applied = try Store.appliedMigrations(atPath: options.path) {
            return Store.status(path: options.path, applied: applied)
        }
        return try openedStatus(logger: logger)
    }

    /// Opens (creating a missing file at the current schema, migrating an older one) and
    /// reports.
    private func openedStatus(logger: Logger) throws -> DatabaseStatus {
        let store = try Store(options: options, logger: logger)
        return try store.closing { try store.currentStatus() }
    }

    public func migrate(logger: Logger) throws -> [String] {
        let before = try Store.appliedMigrations(atPath: options.path) ?? []
        _ = try openedStatus(logger: logger)
        return Store.knownMigrations.filter { !before.contains($0) }
    }
}

extension StoreSource {
    /// The SQLite file the options name, opened for each call.
    public static func options(_ options: StoreOptions) -> StoreSource {
        SQLiteDriver(options: options).stateSource
    }
}

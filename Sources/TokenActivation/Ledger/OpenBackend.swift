import Logging
import PostgresStorage
import Storage

/// The database a command works on, opened: the SQLite file, or PostgreSQL when
/// `database.url` is set.
enum OpenBackend: Sendable {
    case sqlite(Store)
    case postgres(PostgresStore)

    /// Opens the database `settings` name, runs `body`, and closes it again, also when
    /// `body` throws.
    static func using<T>(_ settings: Settings, logger: Logger, _ body: (OpenBackend) async throws -> T) async throws -> T {
        if let postgres = settings.postgres {
            let store = try PostgresStore(options: postgres, logger: logger)
            defer { store.close() }
            return try await body(.postgres(store))
        }
        let store = try Store(options: settings.database, logger: logger)
        return try await store.closing { try await body(.sqlite(store)) }
    }

    /// The same, for a command that does not wait for anything else.
    static func using<T>(_ settings: Settings, logger: Logger, _ body: (OpenBackend) throws -> T) throws -> T {
        if let postgres = settings.postgres {
            let store = try PostgresStore(options: postgres, logger: logger)
            defer { store.close() }
            return try body(.postgres(store))
        }
        return try Store.using(settings.database, logger: logger) { store in try body(.sqlite(store)) }
    }

    /// The same database, holding the onboarding core's state.
    var state: any StateDatabase {
        switch self {
        case .sqlite(let store): store
        case .postgres(let store): store
        }
    }

    /// - Parameter sharing: several workers write at once (a batch): SQLite then writes
    ///   through a writer thread, PostgreSQL through a group writer.
    func ledger(sharing: Bool, activator: Activator) -> any AttemptLedger {
        switch self {
        case .sqlite(let store):
            SQLiteLedger(store: store, sharing: sharing)
        case .postgres(let store):
            PostgresLedger(store: store, sharing: sharing)
        }
    }
}

extension OpenBackend {
    /// The records of a query, in serial order (empty when none).
    func records(matching query: PassQuery) throws -> [PassRecord] {
        switch self {
        case .sqlite(let store):
            try store.readStatement { db in try WalletRepository.records(matching: query, db) }
        case .postgres(let store):
            try store.passes(serialNumber: query.serialNumber, passTypeIdentifier: query.passTypeIdentifier, device: query.device).map(PassRecord.init(row:))
        }
    }
}

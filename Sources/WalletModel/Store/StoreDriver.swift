import Logging

/// One database tokenctl can keep its store in, not yet opened: the SQLite file or a
/// PostgreSQL database. The application chooses one from its settings, in one place.
public protocol StoreDriver: Sendable {
    /// `sqlite` or `postgresql`.
    var backend: String { get }
    /// The file, or the URL without a password.
    var location: String { get }
    /// How long a call may wait for the database again after its connection broke, from the
    /// arrival of the request or command it serves (``StoreDeadline``).
    var reconnectWindowMilliseconds: Int { get }

    /// Opens the database (applying or checking its schema); close it when done.
    func open(logger: Logger) async throws -> any TokenStore

    /// Opens the database for a command that only reads. On PostgreSQL, `database.url` may
    /// then ask for any host or a standby (`target_session_attrs`), which ``open(logger:)``
    /// refuses.
    func openForReading(logger: Logger) async throws -> any TokenStore

    /// Where the schema stands, read without changing it.
    func status(logger: Logger) async throws -> DatabaseStatus

    /// Applies the missing migrations.
    /// - Returns: the names of those applied (none when the schema was current).
    func migrate(logger: Logger) async throws -> [String]
}

extension StoreDriver {
    /// Opens the database, runs `body`, and closes it again, also when `body` throws.
    public func using<T>(logger: Logger, _ body: (any TokenStore) async throws -> T) async throws -> T {
        let store = try await open(logger: logger)
        return try await store.closing { try await body(store) }
    }

    /// ``using(logger:_:)`` for a command that only reads (see ``openForReading(logger:)``).
    public func reading<T>(logger: Logger, _ body: (any TokenStore) async throws -> T) async throws -> T {
        let store = try await openForReading(logger: logger)
        return try await store.closing { try await body(store) }
    }

    /// A file has no connection to lose; the default window bounds nothing then.
    public var reconnectWindowMilliseconds: Int { 30_000 }

    public func openForReading(logger: Logger) async throws -> any TokenStore {
        try await open(logger: logger)
    }

    /// The onboarding core's state in this database, opened for each call.
    public var stateSource: StoreSource {
        .opening { logger in try await open(logger: logger) }
    }
}

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
    /// On PostgreSQL, every host of `database.url` with its role, and the primary's standbys.
    public var replication: Replication?

    public init(backend: String, location: String, applied: Int, known: Int, pending: [String]) {
        self.backend = backend
        self.location = location
        self.applied = applied
        self.known = known
        self.pending = pending
    }

    /// What a PostgreSQL primary and its standbys look like from here (DESIGN §10).
    public struct Replication: Sendable, Equatable {
        public var hosts: [Host]
        /// The primary's `pg_stat_replication`, one standby a row.
        public var standbys: [Standby]
        /// Why a failover could lose committed attempts; nil when a synchronous standby keeps them.
        public var warning: String?

        public init(hosts: [Host], standbys: [Standby], warning: String?) {
            self.hosts = hosts
            self.standbys = standbys
            self.warning = warning
        }
    }

    /// One host of `database.url`.
    public struct Host: Sendable, Equatable {
        public enum Role: String, Sendable {
            case primary, standby, unreachable
        }

        /// `HOST:PORT`.
        public var address: String
        public var role: Role
        /// Why an unreachable host is.
        public var error: String?

        public init(address: String, role: Role, error: String? = nil) {
            self.address = address
            self.role = role
            self.error = error
        }
    }

    /// A standby streaming from the primary.
    public struct Standby: Sendable, Equatable {
        /// Its `application_name`.
        public var name: String
        /// `sync`, `async`, `potential` or `quorum`; nil when the role may not see it.
        public var syncState: String?
        /// How far its replay is behind, in milliseconds; nil when unknown.
        public var replayLagMilliseconds: Int?

        public init(name: String, syncState: String?, replayLagMilliseconds: Int?) {
            self.name = name
            self.syncState = syncState
            self.replayLagMilliseconds = replayLagMilliseconds
        }
    }

    public var isCurrent: Bool { applied == known }
    /// The database has migrations this tokenctl does not know: a newer tokenctl wrote it.
    public var isNewer: Bool { applied > known }
}

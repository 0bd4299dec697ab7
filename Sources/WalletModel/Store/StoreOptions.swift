/// Where and how to open the database.
public struct StoreOptions: Sendable, Equatable {
    /// Path of the SQLite file.
    public var path: String
    /// Create the parent directory (mode 0700) when missing. True only for the built-in
    /// default location: an explicitly configured directory must already exist.
    public var createsDirectory: Bool
    /// How long a writer waits for another process's lock before failing with `storage.busy`.
    public var busyTimeoutMilliseconds: Int

    /// What a committed transaction survives (SQLite's `synchronous` in WAL mode).
    public enum Durability: String, Sendable, Equatable {
        /// A commit survives a crash of the process; a power loss or OS crash may lose the
        /// latest commits (never corrupts). No fsync per commit.
        case normal
        /// A commit also survives a power loss or OS crash: one fsync of the log per commit.
        case full
    }

    public var durability: Durability

    /// The command only reads (audit list/show/export/verify, wallet list/show/export): a file
    /// this user may read but not write (an auditor's) is opened read-only instead of failing.
    public var readsOnly: Bool

    /// Connections that read beside the one that writes (SQLite's WAL lets them read while
    /// it commits): a resident service's reads then never queue behind its group commits.
    /// 0 for a command, which opens one connection and writes nothing to open it.
    public var concurrentReaders = 0

    public init(
        path: String, createsDirectory: Bool = false, busyTimeoutMilliseconds: Int = 30_000,
        durability: Durability = .normal, readsOnly: Bool = false
    ) {
        self.path = path
        self.createsDirectory = createsDirectory
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.durability = durability
        self.readsOnly = readsOnly
    }
}

import CSQLite
import ErrorCodes
import Foundation
import GRDB
import GRDBSQLite
import Glibc
import Logging
import WalletModel

/// The tokenctl database: one SQLite file in WAL mode with a busy timeout, foreign keys on,
/// and the named migrations applied on open.
///
/// Every failure surfaces as a ``StorageError`` with a stable code, except constraint
/// violations, which reach the caller as GRDB `DatabaseError`s to be explained in its terms.
public final class Store: Sendable {
    /// The options the store was opened with.
    public let options: StoreOptions
    /// One connection (a command's), or a writer with concurrent readers (a resident
    /// service's, ``StoreOptions/concurrentReaders``).
    private let database: any DatabaseWriter
    /// Opened read-only: the user may read the file but not write it (``StoreOptions/readsOnly``).
    public let isReadOnly: Bool
    /// Checkpoints the log beside the writers; nil for a store opened read-only.
    let checkpointer: WALCheckpointer?

    /// Opens (creating when missing, with mode 0600) the database and migrates it.
    ///
    /// - Throws: ``StorageError`` when the directory is missing, the file cannot be
    ///   opened or is not a database, or another process holds it past the busy timeout.
    public init(options: StoreOptions, logger: Logger = Logger(label: "tokenctl.storage")) throws {
        _ = Self.processSettings
        self.options = options
        let path = options.path
        if options.readsOnly, try Self.mustOpenReadOnly(path) {
            database = try Self.openReadOnly(options)
            checkpointer = nil
            isReadOnly = true
            logger.debug("store.opened", metadata: ["path": "\(path)", "access": "read-only"])
            return
        }
        isReadOnly = false
        try Self.prepareFile(options)
        let checkpointer = WALCheckpointer(path: path)
        self.checkpointer = checkpointer
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            checkpointer.install(on: db)
            // GRDB's own WAL setup writes to the database on every open after a clean
            // close; switching only when needed keeps opening lock-free for readers.
            if try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" {
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            }
            // In WAL mode, NORMAL keeps every committed transaction across a process
            // crash; FULL also across a power loss, at one fsync per commit.
            try db.execute(
                sql: options.durability == .full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        }
        configuration.busyMode = .timeout(Double(options.busyTimeoutMilliseconds) / 1000)
        configuration.label = "tokenctl"
        let deadline = ContinuousClock.now + .milliseconds(options.busyTimeoutMilliseconds)
        if options.concurrentReaders > 0 { configuration.maximumReaderCount = options.concurrentReaders }
        var opened: (any DatabaseWriter)?
        while opened == nil {
            do {
                let database: any DatabaseWriter
                if options.concurrentReaders > 0 {
                    let pool = try DatabasePool(path: path, configuration: configuration)
                    // The pool's own WAL set-up chose NORMAL: the configured durability wins.
                    if options.durability == .full {
                        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
                    }
                    database = pool
                } else {
                    database = try DatabaseQueue(path: path, configuration: configuration)
                }
                try Self.migrate(database)
                opened = database
            } catch let error as DatabaseError where Self.isEarlyBusy(error, deadline: deadline) {
                // SQLite answers BUSY without waiting while another process is turning a
                // new file into WAL mode; wait out the busy timeout here instead.
                Self.pause()
            } catch let error as DatabaseError {
                throw StorageError.classify(error, path: path, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
                    ?? .io(path: path, error.message ?? "\(error.resultCode)")
            }
        }
        database = opened!
        logger.debug("store.opened", metadata: ["path": "\(path)"])
    }

    /// SQLite's process-wide settings, applied once before the first connection opens.
    /// Without memory statistics, SQLite's allocations take no global mutex (its figure:
    /// Benchmarks/README.md, Measured shapes).
    private static let processSettings: Void = {
        _ = tokenctl_sqlite_disable_memory_statistics()
    }()

    /// Applies missing migrations. Checking in a read first keeps opening lock-free for
    /// readers while another process runs a long import. GRDB decides what to apply
    /// before it takes the lock, so processes creating the same new file at the same
    /// moment can collide ("already exists", "no such table", or a migration both applied
    /// whose record the second one cannot insert): the loser's transaction rolls back; look
    /// again, a few times.
    ///
    /// The header's `user_version` holds the number of migrations applied: when it says the
    /// schema is current, opening reads no schema at all: the migrator's own check parses
    /// the whole schema (Benchmarks/README.md, "Measured shapes").
    private static func migrate(_ database: any DatabaseWriter) throws {
        let migrator = Migrations.migrator
        let current = migrator.migrations.count
        var attempt = 0
        while true {
            do {
                let version = try database.writeWithoutTransaction { db in
                    try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                }
                if version == current { return }
                let complete = try database.read { db in
                    db.clearSchemaCache()
                    return try migrator.hasCompletedMigrations(db)
                }
                if !complete { try migrator.migrate(database) }
                if version < current {
                    try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = \(current)")
                    }
                }
                return
            } catch let error as DatabaseError
                where (error.resultCode == .SQLITE_ERROR || error.resultCode.primaryResultCode == .SQLITE_CONSTRAINT)
                && attempt < 5
            {
                attempt += 1
                usleep(20_000)
            }
        }
    }

    /// The names of the migrations this binary knows, in order.
    public static var knownMigrations: [String] {
        Migrations.migrator.migrations
    }

    /// The names of the migrations applied to this database (all of them once it is open
    /// for writing: opening applies what is missing).
    public func appliedMigrations() throws -> [String] {
        try read { db in try Array(Migrations.migrator.appliedIdentifiers(db)) }.sorted { a, b in
            (Self.knownMigrations.firstIndex(of: a) ?? .max) < (Self.knownMigrations.firstIndex(of: b) ?? .max)
        }
    }

    /// Where the schema of the file at `path` stands, given the migrations `applied` to it.
    static func status(path: String, applied: [String]) -> DatabaseStatus {
        let known = knownMigrations
        return DatabaseStatus(
            backend: "sqlite", location: path, applied: applied.count, known: known.count,
            pending: known.filter { !applied.contains($0) })
    }

    /// Where this open database's schema stands, read through its own connections.
    func currentStatus() throws -> DatabaseStatus {
        Self.status(path: options.path, applied: try appliedMigrations())
    }

    /// The same, awaited on one of GRDB's readers.
    public func databaseStatus() async throws -> DatabaseStatus {
        let applied = try await read { db in try Array(Migrations.migrator.appliedIdentifiers(db)) }
        return Self.status(path: options.path, applied: applied)
    }

    /// The migrations applied to the file at `path`, read without changing it; nil when
    /// there is no file yet.
    public static func appliedMigrations(atPath path: String) throws -> [String]? {
        guard access(path, F_OK) == 0 else { return nil }
        // Read-only, as the file may be this user's to read only (immutable when needed).
        let queue = try readOnlyQueue(path: path, busyTimeoutMilliseconds: 0)
        defer { try? queue.close() }
        return try translatingOpenErrors(path: path, busyTimeoutMilliseconds: 0) {
            try queue.read { db in try Array(Migrations.migrator.appliedIdentifiers(db)) }
        }
    }

    /// Runs `body` in an IMMEDIATE transaction: the write lock is taken up front, so a
    /// concurrent writer waits (up to the busy timeout) instead of failing on upgrade.
    /// Throwing from `body` rolls the transaction back.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try translatingErrors { try database.writeWithoutTransaction { db in try transaction(on: db, body) } }
    }

    /// The same, awaited: `body` runs on GRDB's writer, and the caller's task is suspended,
    /// not its thread. Through GRDB's callback (one queue hop; its async `write` takes two
    /// actor hops).
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            database.asyncWriteWithoutTransaction { db in
                continuation.resume(
                    with: Result { try self.transaction(on: db, body) }.mapError { self.translated($0) })
            }
        }
    }

    /// Runs `body` on GRDB's writer, without a task and without waiting: how a batch writer
    /// (``GroupCommitter``) starts. `body` writes through ``transaction(on:_:)``.
    func startWriter(_ body: @escaping @Sendable (Database) -> Void) {
        database.asyncWriteWithoutTransaction(body)
    }

    /// An IMMEDIATE transaction on the writer's own connection: BUSY answered before the
    /// lock was taken (SQLite can answer it without waiting) is tried again until the busy
    /// timeout; nothing ran yet, so trying again is safe. Every write of this store goes
    /// through it.
    func transaction<T>(on db: Database, _ body: (Database) throws -> T) throws -> T {
        let deadline = ContinuousClock.now + .milliseconds(options.busyTimeoutMilliseconds)
        while true {
            var started = false
            do {
                return try translatingErrors { try Self.immediate(db, started: { started = true }, body) }
            } catch let error as StorageError where error.isTemporary && !started && ContinuousClock.now < deadline {
                Self.pause()
            }
        }
    }

    /// `body` in an IMMEDIATE transaction, committed when it returns; `started` is called
    /// once the write lock is taken.
    private static func immediate<T>(
        _ db: Database, started: () -> Void, _ body: (Database) throws -> T
    ) throws -> T {
        var result: T?
        try db.inTransaction(.immediate) {
            started()
            result = try body(db)
            return .commit
        }
        return result!
    }

    private static func isEarlyBusy(_ error: DatabaseError, deadline: ContinuousClock.Instant) -> Bool {
        (error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED) && ContinuousClock.now < deadline
    }

    private static func pause() {
        usleep(UInt32.random(in: 5_000...25_000))
    }

    /// Runs `body` with read access to a consistent snapshot.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try translatingErrors { try database.read(body) }
    }

    /// The same, awaited: `body` runs on one of GRDB's readers. Through GRDB's callback, whose
    /// two queue hops cost half of its async `read`'s actor hops.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            database.asyncRead { db in
                continuation.resume(with: Result { try body(db.get()) }.mapError { self.translated($0) })
            }
        }
    }

    /// Runs `body` outside an explicit transaction: each statement reads its own snapshot.
    /// Cheaper than ``read(_:)`` for a single query, such as a lookup by key.
    public func readStatement<T>(_ body: (Database) throws -> T) throws -> T {
        try translatingErrors { try database.unsafeRead(body) }
    }

    /// The same, awaited: `body` runs on one of GRDB's readers (as ``read(_:)-(Sendable)`` does).
    public func readStatement<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            database.asyncUnsafeRead { db in
                continuation.resume(with: Result { try body(db.get()) }.mapError { self.translated($0) })
            }
        }
    }

    /// A reading command on a file this user cannot write (or whose directory it cannot write,
    /// where the -wal and -shm files live) opens it read-only. A file it cannot read at all
    /// is `storage.io` "cannot read".
    private static func mustOpenReadOnly(_ path: String) throws -> Bool {
        guard access(path, F_OK) == 0 else { return false }
        guard access(path, R_OK) == 0 else { throw StorageError.unreadable(path: path) }
        return access(path, W_OK) != 0 || access(parentDirectory(of: path), W_OK) != 0
    }

    /// Read-only, no migration, and a schema this binary reads.
    private static func openReadOnly(_ options: StoreOptions) throws -> DatabaseQueue {
        let path = options.path
        let queue = try readOnlyQueue(path: path, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        let complete = try translatingOpenErrors(path: path, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds) {
            try queue.read { db in try Migrations.migrator.hasCompletedMigrations(db) }
        }
        guard complete else {
            throw StorageError(
                .storageReadOnly,
                "the database \(path) has an older schema and this user cannot upgrade it; run any tokenctl command once as its owner"
            )
        }
        return queue
    }

    /// The file opened read-only. When SQLite cannot use the write-ahead log's shared memory
    /// (the -shm file is missing or not writable here), it is opened immutable: it then
    /// shows what was checkpointed, which every tokenctl process does when it closes.
    static func readOnlyQueue(path: String, busyTimeoutMilliseconds: Int) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(Double(busyTimeoutMilliseconds) / 1000)
        configuration.label = "tokenctl"
        return try translatingOpenErrors(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds) {
            do {
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                // Opening is lazy: the first read is where the shared memory is needed.
                try queue.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
                return queue
            } catch let error as DatabaseError
                where [.SQLITE_CANTOPEN, .SQLITE_READONLY].contains(error.resultCode.primaryResultCode)
            {
                let uri =
                    "file:" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)
                    + "?immutable=1"
                return try DatabaseQueue(path: uri, configuration: configuration)
            }
        }
    }

    private static func translatingOpenErrors<T>(
        path: String, busyTimeoutMilliseconds: Int, _ body: () throws -> T
    ) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StorageError.classify(error, path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
                ?? .io(path: path, error.message ?? "\(error.resultCode)")
        }
    }

    /// Checkpoints the write-ahead log and closes the file, so the next process starts fast.
    public func close() throws {
        try translatingErrors { try database.close() }
        checkpointer?.close()
    }

    private func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw translated(error)
        }
    }

    /// A GRDB error as the ``StorageError`` it is, where it is one.
    private func translated(_ error: any Error) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        return StorageError.classify(
            error, path: options.path, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
            ?? error
    }

    /// Whether the SQLite file of `options` can be opened for writing, checked without
    /// creating anything: an existing file must be a regular file this user can read and
    /// write; a new one needs its directory (unless it is the default location, created at
    /// first use) to exist and be writable.
    /// - Returns: whether the file exists.
    public static func checkLocation(_ options: StoreOptions) throws(StorageError) -> Bool {
        let path = options.path
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFREG else { throw StorageError.io(path: path, "not a regular file") }
            if access(path, R_OK) != 0 { throw StorageError.unreadable(path: path) }
            if access(path, W_OK) != 0 { throw StorageError.readOnly(path: path) }
            return true
        }
        let directory = parentDirectory(of: path)
        guard isDirectory(directory) else {
            if options.createsDirectory { return false }
            throw StorageError.directoryMissing(directory)
        }
        if access(directory, W_OK | X_OK) != 0 { throw StorageError.readOnly(path: path) }
        try checkNotOthers(directory, path: path)
        return false
    }

    /// As root, a new database goes only where root owns the directory (see
    /// ``StorageError/othersDirectory(path:directory:owner:)``).
    static func checkNotOthers(_ directory: String, path: String) throws(StorageError) {
        var info = stat()
        guard geteuid() == 0, stat(directory, &info) == 0, info.st_uid != 0 else { return }
        let owner = getpwuid(info.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(info.st_uid)"
        throw StorageError.othersDirectory(path: path, directory: directory, owner: owner)
    }

    /// Creates the directory (default location only) and the file with mode 0600 before
    /// SQLite opens it; SQLite gives the -wal and -shm files the same mode as the database.
    private static func prepareFile(_ options: StoreOptions) throws {
        let path = options.path
        let directory = parentDirectory(of: path)
        if options.createsDirectory {
            try createDirectories(directory)
        } else if !isDirectory(directory) {
            throw StorageError.directoryMissing(directory)
        }
        if access(path, F_OK) != 0 { try checkNotOthers(directory, path: path) }
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            let reason = errno
            if reason == EACCES && access(path, F_OK) == 0 && access(path, R_OK) != 0 {
                throw StorageError.unreadable(path: path)
            }
            if reason == EACCES || reason == EROFS || reason == EPERM { throw StorageError.readOnly(path: path) }
            throw StorageError.io(path: path, SystemError.text(reason))
        }
        _ = Glibc.close(descriptor)
    }

    private static func createDirectories(_ directory: String) throws {
        if isDirectory(directory) { return }
        let parent = parentDirectory(of: directory)
        if parent != directory { try createDirectories(parent) }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw StorageError.io(
                path: directory,
                "cannot create the directory: \(SystemError.text()); set database.path (or TOKENCTL_DATABASE_PATH) to a writable location"
            )
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }
}

extension Store {
    /// The version of the SQLite library linked in.
    public static var sqliteVersion: String {
        String(cString: sqlite3_libversion())
    }
}

extension Store {
    /// Opens the store on ``openingQueue``, awaited: opening reads the file, may migrate it
    /// and waits out a busy lock, none of which a cooperative thread should wait for.
    public static func opened(
        options: StoreOptions, logger: Logger = Logger(label: "tokenctl.storage")
    ) async throws
        -> Store
    {
        try await withCheckedThrowingContinuation { continuation in
            openingQueue.async {
                continuation.resume(with: Result { try Store(options: options, logger: logger) })
            }
        }
    }

    /// Where stores are opened: a queue of SQLite's own, off the cooperative pool.
    private static let openingQueue = DispatchQueue(label: "tokenctl.sqlite.open", attributes: .concurrent)
}

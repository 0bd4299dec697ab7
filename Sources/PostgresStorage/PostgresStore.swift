import ErrorCodes
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization
import WalletModel

/// The tokenctl database on a PostgreSQL server, shared by many hosts, reached through
/// postgres-nio's `PostgresClient`: its pool, run by a task of the store's own from open to
/// ``close()``. Every call awaits its connection (see ``lease()``); no thread waits for the
/// server. Opening checks the schema version: an older schema asks for `tokenctl db
/// migrate`, a newer one is refused.
///
/// Every failure surfaces as a ``StorageError`` (`storage.*`); the messages carry the
/// server's message, never a statement's values.
public final class PostgresStore: Sendable {
    public let options: PostgresOptions
    let logger: Logger
    /// TLS as `sslmode` asks, made once for every pool and direct connection; nil for `disable`.
    let tls: (configuration: TLSConfiguration, context: NIOSSLContext)?
    /// The pool on the host the store reaches now, and those it replaced, still closing.
    let pools: Mutex<Pools>
    let nextID = Atomic<Int>(1_000_000)
    /// A call of this store has had a connection: from then on a failure to get one is a
    /// connection that broke, retried within the reconnect window (the first one fails at once).
    let hasConnected = Atomic<Bool>(false)
    /// A connection broke and no call has had one since (the next that does reconnected).
    let isBroken = Atomic<Bool>(false)
    /// ``connectionFigures``, counted.
    let reconnected = Atomic<Int>(0)
    let reconnectsFailed = Atomic<Int>(0)
    let primaryChanges = Atomic<Int>(0)

    /// The most connections the pool opens: a service's readers, its group writer and its
    /// point calls, with room to spare.
    static let maximumConnections = 16
    /// How long an undo waits on a connection that broke.
    static let undoWait = Duration.seconds(1)
    /// How long a statement outside a request (a migration, a copy, a background round) may
    /// wait for its answer: long enough for the largest, and never forever (a query written
    /// to a connection as it broke may be dropped unanswered).
    static let statementLimit = Duration.seconds(900)

    /// Connects and checks the schema.
    /// - Parameter checkingSchema: false for `tokenctl db migrate` and `db status`, which
    ///   open a database whatever its schema.
    public init(
        options: PostgresOptions, logger: Logger = Logger(label: "tokenctl.storage"), checkingSchema: Bool = true
    ) async throws {
        self.options = options
        self.logger = logger
        if let problem = options.passwordProblem { throw problem }
        let tls = try Self.tlsSettings(options, logger: logger)
        self.tls = tls
        let endpoint = try await HostSelection(options: options, tls: tls, logger: logger).choose()
        pools = Mutex(Pools(current: Self.pool(on: endpoint, options: options, tls: tls, logger: logger)))
        guard checkingSchema else { return }
        do {
            try await checkSchema()
        } catch {
            await close()
            throw error
        }
    }

    /// The pool of the host reached now.
    var pool: Pool { pools.withLock { $0.current } }

    public var connectionFigures: ConnectionFigures {
        ConnectionFigures(
            reconnected: reconnected.load(ordering: .relaxed),
            reconnectsFailed: reconnectsFailed.load(ordering: .relaxed),
            primaryChanges: primaryChanges.load(ordering: .relaxed))
    }

    private func checkSchema() async throws {
        let status = try await schemaStatus()
        if status.applied > status.known {
            throw StorageError(
                .storageSchemaTooNew,
                "the database \(options.displayURL) has schema version \(status.applied), newer than this tokenctl knows (\(status.known)); use a newer tokenctl"
            )
        }
        if status.applied < status.known {
            throw StorageError(
                .storageMigrationRequired,
                "the database \(options.displayURL) has schema version \(status.applied) of \(status.known); run tokenctl db migrate"
            )
        }
    }

    /// Stops the pools and waits until their connections are closed.
    public func close() async {
        let running = pools.withLock { $0.all }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }

    deinit {
        for task in pools.withLock({ $0.all }) { task.cancel() }
    }

    // MARK: Running statements

    /// Runs `body` on a connection of its own for the call (see ``lease()``).
    /// A broken connection, or a write refused by a host that is a standby now, starts a
    /// search for the host to reach (a failover), so the call's retry goes there.
    func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let lease = try await lease()
        defer { release(lease) }
        do {
            return try await body(lease.connection)
        } catch {
            let classified = classify(error)
            if let failure = classified as? StorageError, failure.isConnectionFailure {
                isBroken.store(true, ordering: .relaxed)
                await findHostAgain()
            }
            throw classified
        }
    }

    /// Runs `body` again while its connection breaks, until the request's ``StoreDeadline``
    /// (or the reconnect window from now): for work that may be sent twice, a read, or a
    /// write that recognises itself as applied.
    func retryingWithinWindow<T>(_ body: () async throws -> T) async throws -> T {
        let end = StoreDeadline.current ?? .now + .milliseconds(options.reconnectWindowMilliseconds)
        while true {
            do {
                return try await body()
            } catch let error as StorageError where error.isConnectionFailure {
                guard ContinuousClock.now + Self.retryPause < end else { throw error.windowEnded() }
                try await Task.sleep(for: Self.retryPause)
            }
        }
    }

    /// The pause before a call whose connection broke is sent again.
    static let retryPause = Duration.milliseconds(200)

    /// Runs one statement and returns its rows.
    @discardableResult
    func query(_ query: PostgresQuery) async throws -> PostgresQueryResult {
        try await withConnection { connection in try await connection.answer(query, logger) }
    }

    /// Runs `body` in a transaction on one connection; rolled back when it throws.
    func transaction<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in
            try await connection.between("BEGIN", and: "COMMIT", undo: "ROLLBACK", logger) {
                try await body(connection)
            }
        }
    }

    /// TLS as `sslmode` asks; nil for `disable`. The context is made here, so a CA file that
    /// is not PEM is refused at open, not at the first connection.
    static func tlsSettings(
        _ options: PostgresOptions, logger: Logger
    ) throws -> (configuration: TLSConfiguration, context: NIOSSLContext)? {
        guard options.tls != .disable else { return nil }
        var settings = TLSConfiguration.makeClientConfiguration()
        settings.minimumTLSVersion = .tlsv12
        switch options.tls {
        case .require: settings.certificateVerification = .none
        case .verifyCA: settings.certificateVerification = .noHostnameVerification
        default: settings.certificateVerification = .fullVerification
        }
        if let caFile = options.caFile {
            settings.trustRoots = .file(caFile)
        }
        do {
            return (settings, try NIOSSLContext(configuration: settings))
        } catch {
            logger.debug("the TLS context could not be made", metadata: ["error": "\(error)"])
            // A CA file that is not PEM is the configuration's mistake (78), as
            // `config check` and the other servers' TLS files say.
            guard let caFile = options.caFile else {
                throw StorageError(
                    .storageTLS,
                    "the system's certificate authorities cannot be loaded for PostgreSQL's TLS; set database.tls.ca-file"
                )
            }
            let invalid = ConfigurationError.fileInvalid(
                key: "database.tls.ca-file", path: caFile, expected: "PEM holding certificates")
            throw StorageError(invalid.code, invalid.message)
        }
    }
}

extension PostgresConnection {
    /// Runs one statement without parameters (SQL tokenctl wrote, never a value).
    func run(_ sql: String, _ logger: Logger) async throws {
        _ = try await answer(PostgresQuery(unsafeSQL: sql), logger)
    }

    /// Runs `start`, then `body`; then `end`, or `undo` when `body` throws (its error is
    /// rethrown, `undo`'s own dropped): a transaction, a lock held for a while.
    func between<T>(
        _ start: PostgresQuery, and end: PostgresQuery, undo: PostgresQuery, _ logger: Logger,
        _ body: () async throws -> T
    ) async throws -> T {
        _ = try await answer(start, logger)
        do {
            let result = try await body()
            _ = try await answer(end, logger)
            return result
        } catch {
            // On a connection that broke, the undo may never be answered: it waits no longer
            // than a statement's grace (the server undoes an open transaction whose
            // connection is gone by itself).
            _ = try? await StoreDeadline.within(PostgresStore.undoWait, until: .now) {
                try await answer(undo, logger)
            }
            throw error
        }
    }

    /// Runs `query` and awaits its rows. postgres-nio drops a query written to a connection
    /// that has already closed (the server went away while the connection was idle) without
    /// failing it, and waiting would never end. The check runs on the connection's event loop
    /// after the write: a query the channel took is failed by the channel's close instead.
    ///
    /// A statement of a request still unanswered at the request's ``StoreDeadline`` (or a
    /// whole window after it was sent, when later: a queue is not a silent host; outside a
    /// request, ``PostgresStore/statementLimit``) fails, and its connection is closed: a host
    /// that went silent (vanished without a reset) holds a request in flight no longer than
    /// its window.
    func answer(_ query: PostgresQuery, _ logger: Logger) async throws -> PostgresQueryResult {
        let answered = eventLoop.makePromise(of: PostgresQueryResult.self)
        self.query(query, logger: logger).cascade(to: answered)
        eventLoop.execute {
            if self.isClosed { answered.fail(ConnectionClosed()) }
        }
        let deadline = StoreDeadline.current ?? .now + PostgresStore.statementLimit
        let wait = max(deadline - .now, StoreDeadline.window ?? .zero)
        let giveUp = NIODeadline.now() + .nanoseconds(Int64(wait / .nanoseconds(1)))
        // Checked while the statement waits: a connection that closed after the check above
        // (it broke as the query was written) may have dropped it too.
        let watch = eventLoop.scheduleRepeatedTask(initialDelay: Self.watchInterval, delay: Self.watchInterval) {
            task in
            if self.isClosed {
                task.cancel()
                answered.fail(ConnectionClosed())
            } else if NIODeadline.now() >= giveUp {
                task.cancel()
                answered.fail(StatementUnanswered(waited: wait))
                self.close().whenComplete { _ in }
            }
        }
        answered.futureResult.whenComplete { _ in watch.cancel() }
        return try await answered.futureResult.get()
    }
}

extension PostgresConnection {
    /// How often a waiting statement's connection is looked at.
    static let watchInterval: TimeAmount = .milliseconds(250)
}

/// A query met a connection that had already closed.
struct ConnectionClosed: Error {}

/// No answer came before the request's window ended: the connection counts as broken.
struct StatementUnanswered: Error {
    let waited: Duration
}

import ErrorCodes
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization
import WalletModel

/// The tokenctl database on a PostgreSQL server, shared by many hosts: a small pool of
/// connections (one per concurrent caller), each call blocking its thread until the server
/// answers. Opening checks the schema version: an older schema asks for `tokenctl db
/// migrate`, a newer one is refused.
///
/// Every failure surfaces as a ``StorageError`` (`storage.*`); the messages carry the
/// server's message, never a statement's values.
public final class PostgresStore: Sendable {
    public let options: PostgresOptions
    let logger: Logger
    private let configuration: PostgresConnection.Configuration
    private let idle = Mutex<[PostgresConnection]>([])
    private let nextID = Atomic<Int>(0)

    /// Connects and checks the schema.
    /// - Parameter migrating: true for `tokenctl db migrate` and `db status`, which open a
    ///   database whatever its schema.
    public init(
        options: PostgresOptions, logger: Logger = Logger(label: "tokenctl.storage"), checkingSchema: Bool = true
    ) throws {
        self.options = options
        self.logger = logger
        configuration = try Self.configuration(options, logger: logger)
        if checkingSchema {
            let status = try schemaStatus()
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
    }

    /// Closes every idle connection.
    public func close() {
        let connections = idle.withLock { idle in
            defer { idle.removeAll() }
            return idle
        }
        for connection in connections { try? connection.close().wait() }
    }

    deinit {
        close()
    }

    // MARK: Running statements

    /// Runs `body` on a connection of the pool: one made when none is idle. A connection the
    /// server or the network broke is dropped, not returned.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try idleOpenConnection() ?? connect()
        do {
            let result = try body(connection)
            idle.withLock { $0.append(connection) }
            return result
        } catch {
            if connection.isClosed {
                _ = try? connection.close().wait()
            } else {
                idle.withLock { $0.append(connection) }
            }
            throw classify(error)
        }
    }

    /// The same for an async caller: its task waits for the server, no thread does.
    func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection: PostgresConnection
        if let open = idleOpenConnection() {
            connection = open
        } else {
            connection = try await connect()
        }
        do {
            let result = try await body(connection)
            idle.withLock { $0.append(connection) }
            return result
        } catch {
            if connection.isClosed {
                try? await connection.close()
            } else {
                idle.withLock { $0.append(connection) }
            }
            throw classify(error)
        }
    }

    /// Runs one statement and returns its rows, awaited.
    @discardableResult
    func query(_ query: PostgresQuery) async throws -> PostgresQueryResult {
        try await withConnection { connection in try await connection.answer(query, logger) }
    }

    /// Runs `body` in a transaction on one connection, awaited; rolled back when it throws.
    func transaction<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in
            _ = try await connection.answer("BEGIN", logger)
            do {
                let result = try await body(connection)
                _ = try await connection.answer("COMMIT", logger)
                return result
            } catch {
                _ = try? await connection.answer("ROLLBACK", logger)
                throw error
            }
        }
    }

    /// An idle connection the server has not closed (a restarted server closes them all).
    private func idleOpenConnection() -> PostgresConnection? {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
            _ = try? connection.close().wait()
        }
        return nil
    }

    /// Runs one statement and returns its rows.
    @discardableResult
    func query(_ query: PostgresQuery) throws -> PostgresQueryResult {
        try withConnection { connection in try connection.answer(query, logger) }
    }

    /// Runs `body` in a transaction on one connection; rolled back when it throws.
    func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { connection in
            _ = try connection.answer("BEGIN", logger)
            do {
                let result = try body(connection)
                _ = try connection.answer("COMMIT", logger)
                return result
            } catch {
                _ = try? connection.answer("ROLLBACK", logger)
                throw error
            }
        }
    }

    /// Waits for an async call from a thread outside the cooperative pool.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<T, any Error>?>(nil)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    private func connect() throws -> PostgresConnection {
        do {
            return try connecting().wait()
        } catch {
            throw classify(error, connecting: true)
        }
    }

    private func connect() async throws -> PostgresConnection {
        do {
            return try await connecting().get()
        } catch {
            throw classify(error, connecting: true)
        }
    }

    private func connecting() -> EventLoopFuture<PostgresConnection> {
        PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration,
            id: nextID.wrappingAdd(1, ordering: .relaxed).newValue, logger: logger)
    }

    private static func configuration(
        _ options: PostgresOptions, logger: Logger
    ) throws -> PostgresConnection.Configuration {
        if let problem = options.passwordProblem { throw problem }
        let tls: PostgresConnection.Configuration.TLS
        switch options.tls {
        case .disable:
            tls = .disable
        case .require, .verifyCA, .verifyFull:
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
                tls = .require(try NIOSSLContext(configuration: settings))
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
        var configuration = PostgresConnection.Configuration(
            host: options.host, port: options.port, username: options.user, password: options.password,
            database: options.database, tls: tls
        )
        configuration.options.connectTimeout = .milliseconds(Int64(options.connectTimeoutMilliseconds))
        if options.tls == .verifyFull { configuration.options.tlsServerName = options.host }
        return configuration
    }

    // MARK: Errors

    /// SQLSTATEs tokenctl's own functions raise.
    enum State {
        static let uniqueViolation = "23505"
        static let serializationFailure = "40001"
        static let deadlock = "40P01"
    }

    /// The SQLSTATE of a server error, if `error` is one.
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// Maps a postgres-nio error to a ``StorageError``; a ``StorageError`` passes through,
    /// and so does a server error the caller explains itself (a unique violation).
    func classify(_ error: any Error, connecting: Bool = false) -> any Error {
        if error is StorageError { return error }
        // The library's own text (type names, build paths) stays at debug level; messages
        // say what failed in words.
        logger.debug("PostgreSQL error", metadata: ["error": "\(String(reflecting: error))"])
        let place = "\(options.host):\(options.port)"
        guard let error = error as? PSQLError else {
            if connecting {
                return StorageError(
                    .storageUnreachable, "cannot reach PostgreSQL at \(place): \(Self.words(error, options))")
            }
            if error is ChannelError || error is IOError || error is ConnectionClosed {
                return StorageError(
                    .storageConnectionLost,
                    "the connection to PostgreSQL at \(place) broke: \(Self.words(error, options))")
            }
            if let error = error as? PostgresError {
                return StorageError(.storageIO, "PostgreSQL at \(place): \(error.description)")
            }
            return error
        }
        if let info = error.serverInfo {
            let state = info[.sqlState] ?? ""
            let message = info[.message] ?? "error \(state)"
            switch state {
            case "28P01", "28000":
                return StorageError(
                    .storageAuthentication,
                    "PostgreSQL at \(place) refused user \(options.user): \(message); check database.password-file or TOKENCTL_DATABASE_PASSWORD"
                )
            case "3D000":
                return StorageError(.storageIO, "PostgreSQL at \(place): \(message); create it or fix database.url")
            case "57P01", "57P02", "57P03":
                return StorageError(
                    .storageConnectionLost, "PostgreSQL at \(place) is shutting down or starting: \(message); try again"
                )
            case State.uniqueViolation, State.serializationFailure, State.deadlock:
                return error
            default:
                if state.hasPrefix("08") {
                    return StorageError(
                        .storageConnectionLost, "the connection to PostgreSQL at \(place) broke: \(message)")
                }
                return StorageError(.storageIO, "PostgreSQL at \(place): \(message)")
            }
        }
        switch error.code {
        case .connectionError where error.underlying is NIOSSLError:
            return StorageError(
                .storageTLS,
                "PostgreSQL at \(place) offered a TLS certificate that was not accepted (\(error.underlying.map { Self.words($0, options) } ?? "the TLS handshake failed")); set database.tls.ca-file to the CA that signs it, or check sslmode in database.url"
            )
        case .sslUnsupported:
            return StorageError(
                .storageTLS,
                "PostgreSQL at \(place) does not offer TLS, which sslmode=\(options.tls.rawValue) in database.url requires"
            )
        case .connectionError, .failedToAddSSLHandler:
            let detail = error.underlying.map { Self.words($0, options) } ?? "the connection failed"
            return StorageError(.storageUnreachable, "cannot reach PostgreSQL at \(place): \(detail)")
        case .authMechanismRequiresPassword:
            return StorageError(
                .storageAuthentication,
                "PostgreSQL at \(place) asks user \(options.user) for a password: set database.password-file or TOKENCTL_DATABASE_PASSWORD"
            )
        case .unsupportedAuthMechanism, .saslError:
            return StorageError(
                .storageAuthentication,
                "PostgreSQL at \(place) refused the authentication of user \(options.user) (\(error.code))")
        case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection:
            if connecting {
                let detail =
                    error.underlying.map { Self.words($0, options) }
                    ?? "the connection closed before PostgreSQL answered (nothing listening there, or no answer within \(options.connectTimeoutMilliseconds) ms)"
                return StorageError(.storageUnreachable, "cannot reach PostgreSQL at \(place): \(detail)")
            }
            return StorageError(
                .storageConnectionLost,
                "the connection to PostgreSQL at \(place) broke mid-command; what was committed before stays")
        default:
            return StorageError(.storageIO, "PostgreSQL at \(place): \(error.code)")
        }
    }
}

extension PostgresStore {
    /// What a network or TLS error means, in words: "connection refused", "the host name …
    /// does not resolve", "no answer within 3000 ms", "the certificate could not be
    /// verified".
    static func words(_ error: any Error, _ options: PostgresOptions) -> String {
        switch error {
        case let error as NIOConnectionError:
            if let failure = error.connectionErrors.first { return words(failure.error, options) }
            if error.dnsAError != nil || error.dnsAAAAError != nil {
                return "the host name \(options.host) does not resolve"
            }
            return "no address of \(options.host) could be connected to"
        case is SocketAddressError:
            return "the host name \(options.host) does not resolve"
        case let error as IOError:
            return SystemError.text(error.errnoCode).lowercased()
        case ChannelError.connectTimeout:
            return
                "no answer within \(options.connectTimeoutMilliseconds) ms (the connect timeout, tmp.connect-timeout-ms)"
        case let error as NIOSSLError:
            if case .handshakeFailed(let reason) = error, "\(reason)".contains("CERTIFICATE_VERIFY_FAILED") {
                return "its certificate could not be verified"
            }
            return "the TLS handshake failed"
        case let error as PSQLError:
            return error.underlying.map { words($0, options) } ?? "the connection failed"
        default:
            return "the connection failed (--log-level debug shows the detail)"
        }
    }
}

extension StorageError {
    /// The connection broke or the server could not be reached: trying again later may work.
    public var isConnectionFailure: Bool {
        code == .storageConnectionLost || code == .storageUnreachable
    }
}

extension PostgresConnection {
    /// Runs one statement without parameters (SQL tokenctl wrote, never a value).
    func run(_ sql: String, _ logger: Logger) throws {
        _ = try answer(PostgresQuery(unsafeSQL: sql), logger)
    }

    /// Runs `query` and waits for its rows. postgres-nio drops a query written to a connection
    /// that has already closed (the server went away while the connection was idle) without
    /// failing it, and waiting would never end. The check runs on the connection's event loop
    /// after the write: a query the channel took is failed by the channel's close instead.
    func answer(_ query: PostgresQuery, _ logger: Logger) throws -> PostgresQueryResult {
        try answered(query, logger).wait()
    }

    /// The same, awaited.
    func answer(_ query: PostgresQuery, _ logger: Logger) async throws -> PostgresQueryResult {
        try await answered(query, logger).get()
    }

    private func answered(_ query: PostgresQuery, _ logger: Logger) -> EventLoopFuture<PostgresQueryResult> {
        let answered = eventLoop.makePromise(of: PostgresQueryResult.self)
        self.query(query, logger: logger).cascade(to: answered)
        eventLoop.execute {
            if self.isClosed { answered.fail(ConnectionClosed()) }
        }
        return answered.futureResult
    }
}

/// A query met a connection that had already closed.
struct ConnectionClosed: Error {}

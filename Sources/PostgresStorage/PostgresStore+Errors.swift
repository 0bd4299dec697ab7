import ErrorCodes
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import WalletModel

extension PostgresStore {
    /// SQLSTATEs tokenctl's own functions raise.
    enum State {
        static let uniqueViolation = "23505"
        static let serializationFailure = "40001"
        static let deadlock = "40P01"
        /// A write on a standby (`read_only_sql_transaction`).
        static let readOnly = "25006"
    }

    /// The SQLSTATE of a server error, if `error` is one.
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// Maps a postgres-nio error met on the host reached now to a ``StorageError`` (see
    /// ``classify(_:connecting:at:options:logger:)``).
    func classify(_ error: any Error, connecting: Bool = false, at endpoint: PostgresEndpoint? = nil) -> any Error {
        Self.classify(error, connecting: connecting, at: endpoint ?? pool.endpoint, options: options, logger: logger)
    }

    /// Maps a postgres-nio error met on `endpoint` to a ``StorageError``; a ``StorageError``
    /// passes through, and so does a server error the caller explains itself (a unique
    /// violation).
    static func classify(
        _ error: any Error, connecting: Bool, at endpoint: PostgresEndpoint, options: PostgresOptions, logger: Logger
    ) -> any Error {
        if error is StorageError || error is CancellationError { return error }
        if let failure = error as? DirectConnectFailure {
            return classify(failure.underlying, connecting: true, at: endpoint, options: options, logger: logger)
        }
        let place = "\(endpoint)"
        if error is LeaseTimeout {
            return StorageError(
                .storageUnreachable,
                "PostgreSQL at \(place) answers, but no connection of the pool's \(Self.maximumConnections) came free within \(Self.leaseWindow.nanoseconds / 1_000_000_000) s"
            )
        }
        if let silent = error as? StatementUnanswered {
            return StorageError(
                .storageConnectionLost,
                "PostgreSQL at \(place) did not answer within \(silent.waited.milliseconds) ms (the rest of the request's database.reconnect-window-ms): the connection counts as broken"
            )
        }
        // The library's own text (type names, build paths) stays at debug level; messages
        // say what failed in words.
        logger.debug("PostgreSQL error", metadata: ["error": "\(String(reflecting: error))"])
        guard let error = error as? PSQLError else {
            if connecting {
                return StorageError(
                    .storageUnreachable,
                    "cannot reach PostgreSQL at \(place): \(Self.words(error, host: endpoint.host, options))")
            }
            if error is ChannelError || error is IOError || error is ConnectionClosed {
                return StorageError(
                    .storageConnectionLost,
                    "the connection to PostgreSQL at \(place) broke: \(Self.words(error, host: endpoint.host, options))"
                )
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
            case State.readOnly:
                return StorageError(
                    .storageConnectionLost,
                    "PostgreSQL at \(place) is a standby now and refuses writes: \(message); tokenctl looks for the primary among database.url's hosts"
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
                "PostgreSQL at \(place) offered a TLS certificate that was not accepted (\(error.underlying.map { Self.words($0, host: endpoint.host, options) } ?? "the TLS handshake failed")); set database.tls.ca-file to the CA that signs it, or check sslmode in database.url"
            )
        case .sslUnsupported:
            return StorageError(
                .storageTLS,
                "PostgreSQL at \(place) does not offer TLS, which sslmode=\(options.tls.rawValue) in database.url requires"
            )
        case .connectionError, .failedToAddSSLHandler:
            let detail =
                error.underlying.map { Self.words($0, host: endpoint.host, options) } ?? "the connection failed"
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
                    error.underlying.map { Self.words($0, host: endpoint.host, options) }
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
    static func words(_ error: any Error, host: String, _ options: PostgresOptions) -> String {
        switch error {
        case let error as NIOConnectionError:
            if let failure = error.connectionErrors.first { return words(failure.error, host: host, options) }
            if error.dnsAError != nil || error.dnsAAAAError != nil {
                return "the host name \(host) does not resolve"
            }
            return "no address of \(host) could be connected to"
        case is SocketAddressError:
            return "the host name \(host) does not resolve"
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
            return error.underlying.map { words($0, host: host, options) } ?? "the connection failed"
        default:
            return "the connection failed (--log-level debug shows the detail)"
        }
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}

extension StorageError {
    /// What a call whose reconnect window ended answers (DESIGN §10): `storage.unreachable`,
    /// naming the last error.
    func windowEnded() -> StorageError {
        guard isConnectionFailure, !message.hasPrefix(Self.windowEndedPrefix) else { return self }
        return StorageError(
            .storageUnreachable,
            "\(Self.windowEndedPrefix); the last error: \(message)")
    }

    private static let windowEndedPrefix =
        "no PostgreSQL primary answered within the request's database.reconnect-window-ms"

    /// The connection broke or the server could not be reached: trying again later may work.
    public var isConnectionFailure: Bool {
        code == .storageConnectionLost || code == .storageUnreachable
    }
}

import Logging
import NIOPosix
import NIOSSL
import PostgresNIO
import WalletModel

/// Which host of `database.url` to reach, found as libpq finds it: the hosts in order, the
/// first that `target_session_attrs` accepts (`read-write`: `pg_is_in_recovery()` false).
struct HostSelection {
    let options: PostgresOptions
    let tls: (configuration: TLSConfiguration, context: NIOSSLContext)?
    let logger: Logger

    /// The host to reach. One host is reached without asking its role: a write it refuses
    /// as a standby's says so. When no host is acceptable: `storage.unreachable` naming what
    /// each host answered, or the first host's authentication or TLS error (a setting to fix,
    /// not a server to wait for).
    func choose() async throws -> PostgresEndpoint {
        guard options.endpoints.count > 1 else { return options.endpoints[0] }
        var refusals: [String] = []
        var firstPrimary: PostgresEndpoint?
        for endpoint in options.endpoints {
            let inRecovery: Bool
            do {
                inRecovery = try await isInRecovery(endpoint)
            } catch let error as StorageError where !error.isConnectionFailure {
                throw error
            } catch {
                refusals.append((error as? StorageError)?.message ?? "\(endpoint): \(error)")
                continue
            }
            switch options.targetSessionAttributes {
            case .any: return endpoint
            case .readWrite:
                if !inRecovery { return endpoint }
                refusals.append("\(endpoint) is a standby (read-only)")
            case .preferStandby:
                if inRecovery { return endpoint }
                firstPrimary = firstPrimary ?? endpoint
            }
        }
        if let firstPrimary { return firstPrimary }
        let wanted = options.targetSessionAttributes == .readWrite ? "accepts writes" : "answers"
        throw StorageError(
            .storageUnreachable, "no host of database.url \(wanted): \(refusals.joined(separator: "; "))")
    }

    /// Whether `endpoint`'s server is a standby, asked on a connection of its own.
    func isInRecovery(_ endpoint: PostgresEndpoint) async throws -> Bool {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(),
                configuration: PostgresStore.directConfiguration(endpoint, options: options, tls: tls),
                id: 1, logger: logger)
        } catch {
            throw PostgresStore.classify(error, connecting: true, at: endpoint, options: options, logger: logger)
        }
        do {
            let rows = try await connection.answer("SELECT pg_is_in_recovery()", logger)
            let inRecovery = try rows.first?.decode(Bool.self) ?? false
            try? await connection.close()
            return inRecovery
        } catch {
            try? await connection.close()
            throw PostgresStore.classify(error, connecting: true, at: endpoint, options: options, logger: logger)
        }
    }
}

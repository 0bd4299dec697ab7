import Logging
import NIOSSL
import PostgresNIO
import Synchronization
import WalletModel

/// postgres-nio's pool on one host of `database.url`, run by a task of its own until the
/// store closes or another host becomes the one to reach.
struct Pool: Sendable {
    let endpoint: PostgresEndpoint
    let client: PostgresClient
    /// Connections of this pool the store's calls hold now.
    let held = HeldCount()
    /// The settings of a connection made beside the pool, to name why the pool has none.
    let direct: PostgresConnection.Configuration
    let running: Task<Void, Never>
}

/// A count shared by the copies of one ``Pool``.
final class HeldCount: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .relaxed) }
    func add(_ delta: Int) { count.add(delta, ordering: .relaxed) }
}

/// The pool a store leases from, those it replaced (closing), and a search for the host
/// to reach under way.
struct Pools: Sendable {
    var current: Pool
    var retired: [Task<Void, Never>] = []
    var search: Task<Void, Never>?
    /// When the last search ended: another starts no sooner than ``PostgresStore/searchPause`` after.
    var searched: ContinuousClock.Instant?

    var all: [Task<Void, Never>] { retired + [current.running] }
}

extension PostgresStore {
    /// A pool on `endpoint`, running.
    static func pool(
        on endpoint: PostgresEndpoint, options: PostgresOptions,
        tls: (configuration: TLSConfiguration, context: NIOSSLContext)?, logger: Logger
    ) -> Pool {
        var pooled = PostgresClient.Configuration(
            host: endpoint.host, port: endpoint.port, username: options.user, password: options.password,
            database: options.database, tls: tls.map { .require($0.configuration) } ?? .disable)
        pooled.options.connectTimeout = .milliseconds(Int64(options.connectTimeoutMilliseconds))
        pooled.options.maximumConnections = maximumConnections
        if options.tls == .verifyFull { pooled.options.tlsServerName = endpoint.host }
        // The pool's own connection failures are told by the call that meets them, in words.
        var background = logger
        background.logLevel = max(logger.logLevel, .warning)
        let client = PostgresClient(configuration: pooled, backgroundLogger: background)
        return Pool(
            endpoint: endpoint, client: client, direct: directConfiguration(endpoint, options: options, tls: tls),
            running: Task { await client.run() })
    }

    /// A connection's settings on `endpoint`, beside the pool.
    static func directConfiguration(
        _ endpoint: PostgresEndpoint, options: PostgresOptions,
        tls: (configuration: TLSConfiguration, context: NIOSSLContext)?
    ) -> PostgresConnection.Configuration {
        var direct = PostgresConnection.Configuration(
            host: endpoint.host, port: endpoint.port, username: options.user, password: options.password,
            database: options.database, tls: tls.map { .require($0.context) } ?? .disable)
        direct.options.connectTimeout = .milliseconds(Int64(options.connectTimeoutMilliseconds))
        if options.tls == .verifyFull { direct.options.tlsServerName = endpoint.host }
        return direct
    }

    /// Finds the host to reach again, after a connection broke or a write met a standby: a
    /// pool on another host replaces the current one. One search at a time; a call that
    /// asks while one runs waits for it, and one that asks within ``searchPause`` of the last
    /// search has its answer (the calls that wait for a primary back off on their own). A URL
    /// of one host has nothing to search.
    func findHostAgain() async {
        guard options.endpoints.count > 1 else { return }
        let search: Task<Void, Never>? = pools.withLock { pools in
            if let search = pools.search { return search }
            if let searched = pools.searched, ContinuousClock.now < searched + Self.searchPause { return nil }
            let search = Task { await self.searchHosts() }
            pools.search = search
            return search
        }
        await search?.value
    }

    /// The least time between two searches for the host to reach.
    static let searchPause = Duration.milliseconds(100)

    private func searchHosts() async {
        // The search is every waiting call's, not the one that started it: each host's
        // question gets its own connect timeout, whatever that call's window has left.
        let chosen: PostgresEndpoint?
        do {
            let timeout = Duration.milliseconds(options.connectTimeoutMilliseconds)
            chosen = try await StoreDeadline.within(timeout, until: .now + timeout) {
                try await HostSelection(options: options, tls: tls, logger: logger).choose()
            }
        } catch {
            logger.info(
                "database.primaryNotFound", metadata: ["error": "\((error as? StorageError)?.message ?? "\(error)")"])
            chosen = nil
        }
        let replaced: PostgresEndpoint? = pools.withLock { pools in
            pools.search = nil
            pools.searched = .now
            guard let chosen, chosen != pools.current.endpoint else { return nil }
            let old = pools.current
            old.running.cancel()
            pools.retired.append(old.running)
            pools.current = Self.pool(on: chosen, options: options, tls: tls, logger: logger)
            return old.endpoint
        }
        if let replaced, let chosen {
            primaryChanges.add(1, ordering: .relaxed)
            logger.warning(
                "database.primaryChanged", metadata: ["from": "\(replaced)", "to": "\(chosen)"])
        }
    }
}

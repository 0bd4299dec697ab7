import NIOCore
import NIOPosix
import PostgresNIO
import WalletModel

/// A connection held for one call: one of the client's pool, or (while the pool cannot
/// connect and the server answers) one made for the call alone.
struct ConnectionLease {
    let connection: PostgresConnection
    fileprivate let pooled: OneShot<Void>?
}

/// The pool gave no connection within ``PostgresStore/leaseWindow`` while the server answered.
struct LeaseTimeout: Error {}

/// A direct connection attempt failed: the error is the server's or the network's own.
struct DirectConnectFailure: Error {
    let underlying: any Error
}

extension PostgresStore {
    /// How long a call waits for the pool before one direct connection attempt says why it
    /// has none: the pool retries with a growing backoff and keeps its last error to itself.
    static let diagnosisDelay: TimeAmount = .milliseconds(50)
    /// How long a call waits for a connection while the server answers (every one busy).
    static let leaseWindow: TimeAmount = .seconds(30)

    /// A connection for one call. When none comes within ``diagnosisDelay`` and this store
    /// holds none (a busy pool is not a broken one), one direct connection attempt settles
    /// it: its error is the call's (`connection refused`, TLS, authentication); a connection
    /// it makes serves the call, so a pool still backing off does not keep a reachable server
    /// waiting.
    ///
    /// When the host reached now cannot be, and `database.url` names several, the host to
    /// reach is searched for again, and a pool on another host gets one more try.
    func lease() async throws -> ConnectionLease {
        let current = pool
        do {
            return try await lease(on: current)
        } catch let error as StorageError where error.isConnectionFailure && options.endpoints.count > 1 {
            await findHostAgain()
            let now = pool
            guard now.endpoint != current.endpoint else { throw error }
            return try await lease(on: now)
        }
    }

    private func lease(on pool: Pool) async throws -> ConnectionLease {
        let given = OneShot<ConnectionLease>()
        let released = OneShot<Void>()
        let client = pool.client
        let holder = Task {
            do {
                try await client.withConnection { connection in
                    guard given.give(.success(ConnectionLease(connection: connection, pooled: released))) else {
                        return
                    }
                    _ = try? await released.value()
                }
            } catch {
                // The pool refused the lease (its circuit breaker is open after a long outage):
                // the server itself says whether it answers now.
                if Task.isCancelled { given.give(.failure(error)) } else { diagnose(given, on: pool) }
            }
        }
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let diagnosis = loop.scheduleTask(in: Self.diagnosisDelay) { [self] in
            if held.load(ordering: .relaxed) == 0 { diagnose(given, on: pool) }
        }
        let window = loop.scheduleTask(in: Self.leaseWindow) { given.give(.failure(LeaseTimeout())) }
        do {
            let lease = try await withTaskCancellationHandler {
                try await given.value()
            } onCancel: {
                given.give(.failure(CancellationError()))
            }
            diagnosis.cancel()
            window.cancel()
            held.add(1, ordering: .relaxed)
            return lease
        } catch {
            diagnosis.cancel()
            window.cancel()
            holder.cancel()
            throw classify(error, connecting: true, at: pool.endpoint)
        }
    }

    /// Gives the connection back to the pool, or closes the call's own.
    func release(_ lease: ConnectionLease) {
        held.subtract(1, ordering: .relaxed)
        if let pooled = lease.pooled {
            pooled.give(.success(()))
        } else {
            lease.connection.close().whenComplete { _ in }
        }
    }

    /// One direct connection attempt for a call the pool has not served.
    private func diagnose(_ given: OneShot<ConnectionLease>, on pool: Pool) {
        guard !given.isGiven else { return }
        PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: pool.direct,
            id: nextID.wrappingAdd(1, ordering: .relaxed).newValue, logger: logger
        ).whenComplete { result in
            switch result {
            case .success(let connection):
                if !given.give(.success(ConnectionLease(connection: connection, pooled: nil))) {
                    connection.close().whenComplete { _ in }
                }
            case .failure(let error):
                given.give(.failure(DirectConnectFailure(underlying: error)))
            }
        }
    }
}

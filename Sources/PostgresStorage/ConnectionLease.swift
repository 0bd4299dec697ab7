import NIOCore
import NIOPosix
import PostgresNIO
import WalletModel

/// A connection held for one call: one of the client's pool, or (while the pool cannot
/// connect and the server answers) one made for the call alone.
struct ConnectionLease {
    let connection: PostgresConnection
    fileprivate let pooled: OneShot<Void>?
    /// The pool whose count it is in.
    fileprivate var held: HeldCount?
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
    /// How long a call waits for a pool that connects no more (backing off after a failover)
    /// while other calls hold some of its connections.
    static let stalledPool: TimeAmount = .milliseconds(500)
    /// How long a call waits for a connection while the server answers (every one busy).
    static let leaseWindow: TimeAmount = .seconds(30)

    /// A connection for one call. When none comes within ``diagnosisDelay`` and this store
    /// holds none (a busy pool is not a broken one), one direct connection attempt settles
    /// it: its error is the call's (`connection refused`, TLS, authentication); a connection
    /// it makes serves the call, so a pool still backing off does not keep a reachable server
    /// waiting.
    ///
    /// Once a call of this store has had a connection, one that cannot be had is a
    /// connection that broke (a restart, a failover): the call tries again, on whichever
    /// host of `database.url` accepts writes by then, until its ``StoreDeadline`` (or
    /// `database.reconnect-window-ms` from its start), then fails naming the last error.
    func lease() async throws -> ConnectionLease {
        var deadline: ContinuousClock.Instant?
        var pause = Duration.milliseconds(50)
        while true {
            let current = pool
            do {
                let lease = try await lease(on: current)
                hasConnected.store(true, ordering: .relaxed)
                if isBroken.exchange(false, ordering: .relaxed) { reconnected.add(1, ordering: .relaxed) }
                return lease
            } catch let error as StorageError where error.isConnectionFailure {
                guard hasConnected.load(ordering: .relaxed) else { throw error }
                isBroken.store(true, ordering: .relaxed)
                await findHostAgain()
                if pool.endpoint != current.endpoint { continue }
                let end =
                    deadline ?? StoreDeadline.current ?? .now + .milliseconds(options.reconnectWindowMilliseconds)
                deadline = end
                guard ContinuousClock.now + pause < end else {
                    reconnectsFailed.add(1, ordering: .relaxed)
                    logger.warning(
                        "database.windowEnded",
                        metadata: ["host": "\(current.endpoint)", "error": "\(error.message)"])
                    throw error.windowEnded()
                }
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(1))
            }
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
        // Until the call has a connection: once this pool's calls hold none (a busy pool is
        // not a broken one), or hold fewer than it may open and it has made none for
        // ``stalledPool``, one direct attempt says why; a pool another replaced (a failover)
        // answers at once that the call goes to the new one.
        let asked = NIODeadline.now()
        let diagnosis = loop.scheduleRepeatedTask(initialDelay: Self.diagnosisDelay, delay: Self.diagnosisDelay) {
            [self] task in
            if given.isGiven {
                task.cancel()
            } else if self.pool.endpoint != pool.endpoint {
                task.cancel()
                given.give(
                    .failure(
                        StorageError(
                            .storageConnectionLost,
                            "the pool on \(pool.endpoint) was replaced: database.url's primary changed")))
            } else if pool.held.value == 0
                || (NIODeadline.now() - asked >= Self.stalledPool && pool.held.value < Self.maximumConnections)
            {
                task.cancel()
                diagnose(given, on: pool)
            }
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
            pool.held.add(1)
            var held = lease
            held.held = pool.held
            return held
        } catch {
            diagnosis.cancel()
            window.cancel()
            holder.cancel()
            throw classify(error, connecting: true, at: pool.endpoint)
        }
    }

    /// Gives the connection back to the pool, or closes the call's own.
    func release(_ lease: ConnectionLease) {
        lease.held?.add(-1)
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

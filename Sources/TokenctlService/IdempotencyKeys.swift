import Logging
import ServiceLifecycle
import WalletModel

/// Idempotency-Key answers kept in the database (both backends, ``IdempotencyTable``), so a
/// repeat finds them across restarts and across the service processes sharing it.
struct IdempotencyKeys: Sendable {
    /// What a key's row says when a request arrives with it.
    enum Claim: Equatable {
        /// The key is new: this request runs and its answer is stored.
        case claimed
        /// The same key and deeplink answered before: the stored answer.
        case replay(status: Int, body: String)
        /// The key was first used with another deeplink.
        case mismatch
        /// The key's first request is still running.
        case inFlight
    }

    let database: any StateDatabase
    let hasher: DeeplinkHasher
    /// A claim older than this without an answer was left by a process that died: it is
    /// taken over (the activation's own guard still prevents a second send).
    let abandonedAfterMilliseconds: Int64
    let retentionMilliseconds: Int64
    let clock: @Sendable () -> Timestamp

    func claim(key: String, deeplink: String) throws -> Claim {
        let hash = hasher.hash(deeplink)
        let now = clock().milliseconds
        return try database.writeState { db in
            let inserted = try db.execute(
                "INSERT INTO idempotency_key (key, deeplink_hash, created_ms) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING",
                [.text(key), .text(hash), .integer(now)]
            )
            if inserted == 1 { return .claimed }
            guard let row = try db.row("SELECT deeplink_hash, created_ms, status, answer FROM idempotency_key WHERE key = ?", [.text(key)]) else {
                return .inFlight
            }
            guard row.text("deeplink_hash") == hash else { return .mismatch }
            if let answer = row.text("answer"), let status = row.integer("status") {
                return .replay(status: status, body: answer)
            }
            if now - Int64(row.integer("created_ms") ?? 0) > abandonedAfterMilliseconds {
                try db.execute("UPDATE idempotency_key SET created_ms = ? WHERE key = ? AND answer IS NULL", [.integer(now), .text(key)])
                return .claimed
            }
            return .inFlight
        }
    }

    /// Stores the answer of a claimed key.
    func store(key: String, status: Int, body: String) throws {
        _ = try database.writeState { db in
            try db.execute("UPDATE idempotency_key SET status = ?, answer = ? WHERE key = ?", [.integer(Int64(status)), .text(body), .text(key)])
        }
    }

    /// Gives a claimed key up: the request was refused before it reached the pipeline.
    func release(key: String) throws {
        _ = try database.writeState { db in
            try db.execute("DELETE FROM idempotency_key WHERE key = ? AND answer IS NULL", [.text(key)])
        }
    }

    /// Deletes the answers older than the retention.
    /// - Returns: the number deleted.
    @discardableResult
    func purge() throws -> Int {
        let cutoff = clock().milliseconds - retentionMilliseconds
        return try database.writeState { db in try db.execute("DELETE FROM idempotency_key WHERE created_ms < ?", [.integer(cutoff)]) }
    }
}

/// Deletes Idempotency-Key answers past their retention, at start and every ten minutes.
struct IdempotencyPurge: Service {
    let keys: IdempotencyKeys
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let keys = self.keys
            do {
                let purged = try await ActivationService.blocking { try keys.purge() }
                if purged > 0 { logger.info("service.idempotencyPurged", metadata: ["keys": "\(purged)"]) }
            } catch {
                logger.warning("service.idempotencyPurgeFailed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(600)) }
        }
    }
}

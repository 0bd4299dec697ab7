import Foundation
import GRDB
import TextFormats
import WalletModel

extension Store {
    /// Runs `body` in one IMMEDIATE transaction that stays open between its accesses, on a
    /// connection of its own: how a whole-database write awaits its source (an import's
    /// chunks, a copy's pages) between the rows it writes. The store's writer serves one
    /// access at a time, so its own connection cannot hold a transaction across awaits.
    /// Rolled back when `body` throws.
    func spanningTransaction<T>(_ body: (SpanningWrite) async throws -> T) async throws -> T {
        let queue = try spanningConnection()
        defer { try? queue.close() }
        do {
            try await queue.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
            do {
                let result = try await body(SpanningWrite(queue: queue))
                try await queue.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
                return result
            } catch {
                try? await queue.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
                throw error
            }
        } catch let error as DatabaseError {
            throw StorageError.classify(
                error, path: options.path, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
                ?? .io(path: options.path, error.message ?? "\(error.resultCode)")
        }
    }

    /// Loads a whole database (`tokenctl db copy`) into this empty one, in one transaction
    /// that spans the source's pages: each page is awaited from the source, then written.
    public func load(_ copy: StoreCopy) async throws -> CopyCounts {
        try await spanningTransaction { write in
            try await write { [options] db in
                let held = (try WalletRepository.count(db), try AuditLog.count(db))
                let heldState = try StateTables.snapshot(db).heldTables
                guard held == (0, 0), heldState.isEmpty else {
                    throw StorageError.targetNotEmpty(
                        options.path, passes: held.0, auditRows: held.1, stateTables: heldState)
                }
            }
            return try await load(copy, with: write)
        }
    }

    private func load(_ copy: StoreCopy, with write: SpanningWrite) async throws -> CopyCounts {
        var passes = 0
        while let page = try await copy.passes.nextPage() {
            try await write { db in
                for record in page where try WalletRepository.insert(record, db) != .inserted {
                    throw StorageError(
                        .storageIO,
                        "the source holds two records that collide (serial \(Mask.identifier(record.serialNumber))); nothing was copied"
                    )
                }
            }
            passes += page.count
        }
        var rows = 0
        var chain = ChainCheck()
        while let page = try await copy.auditRows.nextPage() {
            let checked = try page.map { stored in (try chain.checkCopied(stored), stored.previousHash) }
            try await write { db in
                for (row, previous) in checked { _ = try AuditLog.append(row, previous: previous, db) }
            }
            rows += page.count
        }
        let state = try await copy.state.stateSnapshot()
        let key = copy.deeplinkHashKey
        try await write { db in
            try db.execute(
                sql: "UPDATE metadata SET value = ? WHERE key = 'deeplink-hash-key'",
                arguments: [Data(key)])
            try StateTables.insert(state, db)
        }
        return CopyCounts(passes: passes, auditRows: rows, stateRows: state.rowCount)
    }

    /// A connection of its own on this file, set up as the store's, allowed to keep a
    /// transaction open between its accesses.
    private func spanningConnection() throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.allowsUnsafeTransactions = true
        configuration.busyMode = .timeout(Double(options.busyTimeoutMilliseconds) / 1000)
        configuration.label = "tokenctl.spanning"
        let (checkpointer, durability) = (checkpointer, options.durability)
        configuration.prepareDatabase { db in
            checkpointer?.install(on: db)
            try db.execute(sql: durability == .full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        }
        do {
            return try DatabaseQueue(path: options.path, configuration: configuration)
        } catch let error as DatabaseError {
            throw StorageError.classify(
                error, path: options.path, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
                ?? .io(path: options.path, error.message ?? "\(error.resultCode)")
        }
    }
}

/// One access of a ``Store/spanningTransaction(_:)``: `body` runs on its connection, inside
/// the open transaction.
struct SpanningWrite {
    let queue: DatabaseQueue

    /// Through GRDB's callback: one queue hop (its async API takes two actor hops).
    func callAsFunction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.asyncWriteWithoutTransaction { db in continuation.resume(with: Result { try body(db) }) }
        }
    }
}

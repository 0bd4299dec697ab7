import Foundation
import GRDB
import WalletModel

extension Store {
    /// Loads a whole database (`tokenctl db copy`) into this empty one, in one transaction
    /// that spans the source's pages: each page is awaited from the source, then written on
    /// a connection of the copy's own, whose transaction stays open between pages (a store's
    /// writer serves one call at a time, and a copy's target has no other writer).
    public func load(_ copy: StoreCopy) async throws -> CopyCounts {
        let queue = try loadingQueue()
        defer { try? queue.close() }
        do {
            try await queue.writeWithoutTransaction { [options] db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                let held = (try WalletRepository.count(db), try AuditLog.count(db))
                let heldState = try StateTables.snapshot(db).heldTables
                guard held == (0, 0), heldState.isEmpty else {
                    throw StorageError.targetNotEmpty(
                        options.path, passes: held.0, auditRows: held.1, stateTables: heldState)
                }
            }
            do {
                let counts = try await load(copy, on: queue)
                try await queue.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
                return counts
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

    private func load(_ copy: StoreCopy, on queue: DatabaseQueue) async throws -> CopyCounts {
        var passes = 0
        while let page = try await copy.passes.nextPage() {
            try await queue.writeWithoutTransaction { db in
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
            try await queue.writeWithoutTransaction { db in
                for (row, previous) in checked { _ = try AuditLog.append(row, previous: previous, db) }
            }
            rows += page.count
        }
        let state = try await copy.state.stateSnapshot()
        let key = copy.deeplinkHashKey
        try await queue.writeWithoutTransaction { db in
            try db.execute(
                sql: "UPDATE metadata SET value = ? WHERE key = 'deeplink-hash-key'",
                arguments: [Data(key)])
            try StateTables.insert(state, db)
        }
        return CopyCounts(passes: passes, auditRows: rows, stateRows: state.rowCount)
    }

    /// A connection of the copy's own on this file, allowed to keep a transaction open
    /// between its accesses.
    private func loadingQueue() throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.allowsUnsafeTransactions = true
        configuration.busyMode = .timeout(Double(options.busyTimeoutMilliseconds) / 1000)
        configuration.label = "tokenctl.copy"
        do {
            return try DatabaseQueue(path: options.path, configuration: configuration)
        } catch let error as DatabaseError {
            throw StorageError.classify(
                error, path: options.path, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
                ?? .io(path: options.path, error.message ?? "\(error.resultCode)")
        }
    }
}

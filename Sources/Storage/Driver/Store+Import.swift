import GRDB
import WalletModel

extension Store {
    /// Upserts the rows in one transaction: every row written, or — at the first row that
    /// collides — none.
    ///
    /// Into an empty wallet from an input that can be read again, the device label's unique
    /// index is built once, after the rows, instead of kept up to date row by row: measured
    /// 2.32 s → 1.95 s of SQLite's work for 1,000,000 rows. Should the index refuse the rows,
    /// nothing is written and the answer is ``PassImportResult/indexRefused``.
    ///
    /// The rows are pulled on GRDB's writer, which waits while the import's reader parses.
    public func importPasses(_ rows: PassImport) async throws -> PassImportResult {
        // The writer is the one thread that touches the rows' source until the write returns.
        nonisolated(unsafe) let rows = rows
        do {
            return try await write { db in try Self.upsert(rows, db) }
        } catch let refused as Refused {
            return refused.result
        }
    }

    /// Ends the import's transaction (rolled back) with this answer.
    private struct Refused: Error {
        let result: PassImportResult
    }

    private static func upsert(_ rows: PassImport, _ db: Database) throws -> PassImportResult {
        // A big import touches pages all over the file. A 32 MiB cache keeps unchanged
        // rows cheap to compare, and reading through a memory map (capped at 256 MiB,
        // file-backed and reclaimable) keeps a wallet-wide update from re-reading
        // spilled pages with a system call each: measured 37 s → 10 s for 1,000,000
        // changed rows (Benchmarks/wallet.sh).
        try db.execute(sql: "PRAGMA cache_size = -32768")
        try db.execute(sql: "PRAGMA mmap_size = 268435456")
        let before = try WalletRepository.count(db)
        let defersIndex = rows.canReadAgain && before == 0
        if defersIndex {
            try WalletRepository.dropDeviceIndex(db)
            // Rows into an empty table compare with no stored ones: half the cache does as
            // well (measured 2.8–2.9 s for 1,000,000 rows either way) and keeps the peak
            // 17 MiB lower (47 against 64 MiB).
            try db.execute(sql: "PRAGMA cache_size = -16384")
        }
        let kept = KeptStates()
        db.add(function: kept.function)
        defer { db.remove(function: kept.function) }
        let upsert = try WalletRepository.makeUpsert(db)
        var written = 0
        while let (line, fields) = try rows.next() {
            do {
                if try WalletRepository.upsert(fields, overwriteState: rows.overwriteState, with: upsert, db) {
                    written += 1
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw Refused(result: .conflict(line: line, fields))
            }
        }
        if defersIndex {
            // The sort that builds the index stays small: the rows' cache is no longer needed.
            try db.execute(sql: "PRAGMA cache_size = -2048")
            do {
                try WalletRepository.createDeviceIndex(db)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw Refused(result: .indexRefused)
            }
        }
        let inserted = try WalletRepository.count(db) - before
        return .imported(inserted: inserted, updated: written - inserted, keptStates: kept.count)
    }

    /// `tokenctl_state_kept()`: counts the rows whose state the upsert kept; answers false.
    private final class KeptStates: @unchecked Sendable {
        private(set) var count = 0
        lazy var function = DatabaseFunction("tokenctl_state_kept", argumentCount: 0, pure: false) { [unowned self] _ in
            self.count += 1
            return false
        }
    }
}

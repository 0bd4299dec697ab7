import GRDB
import WalletModel

extension Store {
    /// Upserts the rows in one transaction: every row written, or — at the first row that
    /// collides — none.
    ///
    /// Into an empty wallet from an input that can be read again, the device label's unique
    /// index is built once, after the rows, instead of kept up to date row by row (its
    /// figure: Benchmarks/README.md, Measured shapes). Should the index refuse the rows,
    /// nothing is written and the answer is ``PassImportResult/indexRefused``.
    ///
    /// The rows' chunks are awaited between the writes (``spanningTransaction(_:)``): while
    /// one chunk is written, the import's reader parses the next.
    public func importPasses(_ rows: PassImport) async throws -> PassImportResult {
        do {
            return try await spanningTransaction { write in try await Self.upsert(rows, write) }
        } catch let refused as Refused {
            return refused.result
        }
    }

    /// Ends the import's transaction (rolled back) with this answer.
    private struct Refused: Error {
        let result: PassImportResult
    }

    private static func upsert(_ rows: PassImport, _ write: SpanningWrite) async throws -> PassImportResult {
        let kept = KeptStates()
        let canReadAgain = rows.canReadAgain
        let (before, defersIndex) = try await write { db in
            // A big import touches pages all over the file. A 32 MiB cache keeps unchanged
            // rows cheap to compare, and reading through a memory map (capped at 256 MiB,
            // file-backed and reclaimable) keeps a wallet-wide update from re-reading
            // spilled pages with a system call each (Benchmarks/README.md, Measured shapes).
            try db.execute(sql: "PRAGMA cache_size = -32768")
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
            let before = try WalletRepository.count(db)
            let defersIndex = canReadAgain && before == 0
            if defersIndex {
                try WalletRepository.dropDeviceIndex(db)
                // Rows into an empty table compare with no stored ones: half the cache does as
                // well and keeps the peak lower (Benchmarks/README.md, Measured shapes).
                try db.execute(sql: "PRAGMA cache_size = -16384")
            }
            db.add(function: kept.function)
            return (before, defersIndex)
        }
        var written = 0
        let overwriteState = rows.overwriteState
        while let chunk = try await rows.nextChunk() {
            written += try await write { db in
                let upsert = try WalletRepository.makeUpsert(db)
                var written = 0
                for (line, fields) in chunk {
                    do {
                        if try WalletRepository.upsert(fields, overwriteState: overwriteState, with: upsert, db) {
                            written += 1
                        }
                    } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                        throw Refused(result: .conflict(line: line, fields))
                    }
                }
                return written
            }
        }
        return try await write { [written] db in
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

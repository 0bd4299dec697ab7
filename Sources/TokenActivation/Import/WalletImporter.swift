import GRDB
import Glibc
import PostgresStorage
import Storage

/// Where an import reads from.
public enum ImportInput: Sendable, Equatable {
    case file(String)
    case standardInput

    var name: String {
        switch self {
        case .file(let path): path
        case .standardInput: "standard input"
        }
    }
}

/// What an import did.
public struct ImportSummary: Sendable, Equatable {
    /// Rows read from the file.
    public var rows: Int
    /// Rows that created a new record.
    public var inserted: Int
    /// Rows that changed an existing record.
    public var updated: Int
    /// Rows whose state would have moved an activated (or activating) pass back, kept as
    /// stored (without `--overwrite-state`).
    public var keptStates = 0
    /// Rows equal to what was stored (a row repeated in the file counts each time).
    public var unchanged: Int { rows - inserted - updated }
}

/// Reports import progress: bytes read so far and the input size when known.
public typealias ImportProgress = (_ bytesRead: Int, _ totalBytes: Int?) -> Void

/// Upserts pass records from a CSV or JSON Lines stream in one transaction: every row
/// is validated and written, or — at the first bad row — nothing is.
struct WalletImporter {
    var input: ImportInput
    var format: WalletFileFormat?
    var progress: ImportProgress?
    /// Lets the file's state move an activated or activating pass back.
    var overwriteState = false

    func run(on store: Store) throws -> ImportSummary {
        do {
            return try write(on: store, deferringDeviceIndex: true)
        } catch is DeviceIndexRefused {
            // The file binds a device label twice: nothing was written. Row by row, with the
            // index in place, the refused row is found and named by its line.
            return try write(on: store, deferringDeviceIndex: false)
        }
    }

    /// One pass over the input in one transaction.
    ///
    /// - Parameter deferringDeviceIndex: into an empty wallet, build the device label's
    ///   unique index once, after the rows, instead of keeping it up to date row by row:
    ///   measured 2.32 s → 1.95 s of SQLite's work for 1,000,000 rows. Only for input that
    ///   can be read again (a regular file, the one input whose size is known): should the
    ///   index refuse the rows, the import throws ``DeviceIndexRefused`` and runs again
    ///   without deferring.
    private func write(on store: Store, deferringDeviceIndex: Bool) throws -> ImportSummary {
        try withRows { rows, totalBytes in try write(rows, totalBytes: totalBytes, on: store, deferringDeviceIndex: deferringDeviceIndex) }
    }

    /// Opens the input and reads its rows on a second thread while the caller's writes:
    /// measured 9.4 s → 7.5 s for 1,000,000 rows on a 2-core machine (Benchmarks/targets.sh).
    private func withRows<T>(_ body: (ReadAheadRowSource, _ totalBytes: Int?) throws -> T) throws -> T {
        let (descriptor, totalBytes) = try input.open()
        defer { if case .file = input { _ = Glibc.close(descriptor) } }
        var reader = ByteReader(descriptor: descriptor, name: input.name)
        let format = try self.format ?? WalletFileFormat.inferred(fromPath: input.name) ?? Self.sniff(&reader)
        let source: any ImportRowSource = switch format {
        case .csv: try CSVRowSource(reader: reader)
        case .jsonl: JSONLinesRowSource(reader: reader)
        }
        let rows = ReadAheadRowSource(source)
        defer { rows.finish() }
        return try body(rows, totalBytes)
    }

    /// Into PostgreSQL: the rows streamed with COPY, then merged in the same transaction.
    func run(on store: PostgresStore) throws -> ImportSummary {
        try withRows { rows, totalBytes in
            var count = 0
            let result = try store.importPasses(overwriteState: overwriteState) {
                guard let (line, fields) = try rows.next() else {
                    progress?(rows.bytesConsumed, totalBytes)
                    return nil
                }
                count += 1
                if count & 0x3FFF == 0 { progress?(rows.bytesConsumed, totalBytes) }
                return ImportedPass(
                    line: line, passTypeIdentifier: fields.passTypeIdentifier, serialNumber: fields.serialNumber,
                    deviceAccountIdentifier: fields.deviceAccountIdentifier, state: fields.state?.rawValue, device: fields.device, cardSuffix: fields.cardSuffix
                )
            }
            switch result {
            case .imported(let counts):
                return ImportSummary(rows: count, inserted: counts.inserted, updated: counts.updated, keptStates: counts.keptStates)
            case .conflict(let line, let row):
                throw ImportError.conflict(line: line, ValidatedPassFields(
                    serialNumber: row.serialNumber, deviceAccountIdentifier: row.deviceAccountIdentifier, passTypeIdentifier: row.passTypeIdentifier,
                    state: row.state.flatMap(PassState.init(rawValue:)), device: row.device, cardSuffix: row.cardSuffix
                ))
            }
        }
    }

    private func write(_ rows: ReadAheadRowSource, totalBytes: Int?, on store: Store, deferringDeviceIndex: Bool) throws -> ImportSummary {
        try store.write { db in
            // A big import touches pages all over the file. A 32 MiB cache keeps unchanged
            // rows cheap to compare, and reading through a memory map (capped at 256 MiB,
            // file-backed and reclaimable) keeps a wallet-wide update from re-reading
            // spilled pages with a system call each: measured 37 s → 10 s for 1,000,000
            // changed rows (Benchmarks/wallet.sh).
            try db.execute(sql: "PRAGMA cache_size = -32768")
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
            let before = try WalletRepository.count(db)
            let defersIndex = deferringDeviceIndex && totalBytes != nil && before == 0
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
            var count = 0
            var written = 0
            while let (line, fields) = try rows.next() {
                do {
                    if try WalletRepository.upsert(fields, overwriteState: overwriteState, with: upsert, db) { written += 1 }
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    throw ImportError.conflict(line: line, fields)
                }
                count += 1
                if count & 0x3FFF == 0 { progress?(rows.bytesConsumed, totalBytes) }
            }
            progress?(rows.bytesConsumed, totalBytes)
            if defersIndex {
                // The sort that builds the index stays small: the rows' cache is no longer needed.
                try db.execute(sql: "PRAGMA cache_size = -2048")
                do {
                    try WalletRepository.createDeviceIndex(db)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    throw DeviceIndexRefused()
                }
            }
            let inserted = try WalletRepository.count(db) - before
            return ImportSummary(rows: count, inserted: inserted, updated: written - inserted, keptStates: kept.count)
        }
    }

    /// The deferred device index refused the imported rows (the transaction rolls back).
    private struct DeviceIndexRefused: Error {}

    /// `tokenctl_state_kept()`: counts the rows whose state the upsert kept; answers false.
    final class KeptStates: @unchecked Sendable {
        private(set) var count = 0
        lazy var function = DatabaseFunction("tokenctl_state_kept", argumentCount: 0, pure: false) { [unowned self] _ in
            self.count += 1
            return false
        }
    }

    /// Without an extension or `--format`: JSON Lines if the first visible byte is `{`.
    private static func sniff(_ reader: inout ByteReader) throws(ImportError) -> WalletFileFormat {
        try reader.peek() == UInt8(ascii: "{") ? .jsonl : .csv
    }
}

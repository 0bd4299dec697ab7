import Glibc
import Synchronization
import WalletModel

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
public typealias ImportProgress = @Sendable (_ bytesRead: Int, _ totalBytes: Int?) -> Void

/// Upserts pass records from a CSV or JSON Lines stream in one transaction: every row
/// is validated and written, or — at the first bad row — nothing is.
struct WalletImporter {
    var input: ImportInput
    var format: WalletFileFormat?
    var progress: ImportProgress?
    /// Lets the file's state move an activated or activating pass back.
    var overwriteState = false

    /// Reads the input into `store`. An input that can be read again (a regular file, the one
    /// input whose size is known) lets the store build an index after the rows; should that
    /// index refuse them, nothing was written and the input is read again row by row, to name
    /// the refused line.
    func run(on store: any TokenStore) async throws -> ImportSummary {
        if let summary = try await write(on: store, canReadAgain: true) { return summary }
        return try await write(on: store, canReadAgain: false)!
    }

    /// One pass over the input in one transaction; nil when the store's index refused the rows.
    private func write(on store: any TokenStore, canReadAgain: Bool) async throws -> ImportSummary? {
        try await withRows { rows, totalBytes in
            let count = Atomic<Int>(0)
            let result = try await store.importPasses(
                PassImport(overwriteState: overwriteState, canReadAgain: canReadAgain && totalBytes != nil) {
                    try await rows.next().map { chunk in
                        count.add(chunk.count, ordering: .relaxed)
                        return chunk
                    }
                })
            switch result {
            case .imported(let inserted, let updated, let keptStates):
                return ImportSummary(
                    rows: count.load(ordering: .relaxed), inserted: inserted, updated: updated, keptStates: keptStates)
            case .conflict(let line, let fields):
                throw ImportError.conflict(line: line, fields)
            case .indexRefused:
                return nil
            }
        }
    }

    /// Opens the input and reads its rows a chunk ahead of the writes (``ReadAheadRows``),
    /// which tells the progress callback of every 16 chunks.
    private func withRows<T>(_ body: (ReadAheadRows, _ totalBytes: Int?) async throws -> T) async throws -> T {
        let (descriptor, totalBytes) = try input.open()
        defer { if case .file = input { _ = Glibc.close(descriptor) } }
        var reader = ByteReader(descriptor: descriptor, name: input.name)
        let format = try self.format ?? WalletFileFormat.inferred(fromPath: input.name) ?? Self.sniff(&reader)
        let source: any ImportRowSource =
            switch format {
            case .csv: try CSVRowSource(reader: reader)
            case .jsonl: JSONLinesRowSource(reader: reader)
            }
        let rows = ReadAheadRows(
            source, progress: progress.map { progress in { @Sendable in progress($0, totalBytes) } })
        do {
            let result = try await body(rows, totalBytes)
            await rows.finish()
            return result
        } catch {
            await rows.finish()
            throw error
        }
    }

    /// Without an extension or `--format`: JSON Lines if the first visible byte is `{`.
    private static func sniff(_ reader: inout ByteReader) throws(ImportError) -> WalletFileFormat {
        try reader.peek() == UInt8(ascii: "{") ? .jsonl : .csv
    }
}

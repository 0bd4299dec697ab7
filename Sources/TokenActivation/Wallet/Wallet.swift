import Logging
import TextFormats
import WalletModel

/// Wallet pass record administration: the library side of `tokenctl wallet …`.
///
/// Each call opens the database, does one job in one transaction, and closes it again,
/// so the write-ahead log is checkpointed before the process exits.
public struct Wallet: Sendable {
    let store: any StoreDriver
    let logger: Logger

    public init(store: any StoreDriver, logger: Logger = Logger(label: "tokenctl.wallet")) {
        self.store = store
        self.logger = logger
    }

    /// Adds one record.
    /// - Throws: ``PassRecordError`` for a bad value, ``WalletError`` `duplicate` when the
    ///   record exists or `conflict` when its (pass type, serial, device) names another
    ///   device account id, ``StorageError``.
    @discardableResult
    public func add(_ fields: PassRecordFields) async throws -> PassRecord {
        let record = try PassRecordValidation.validate(fields).newRecord
        switch try await store.using(logger: logger, { store in try await store.insertPass(record) }) {
        case .inserted: break
        case .duplicate: throw WalletError.duplicate(record)
        case .conflict: throw WalletError.conflict(record)
        }
        logger.info("wallet.added", metadata: ["serial": "\(Mask.identifier(record.serialNumber))"])
        return record
    }

    /// The records with a serial number, optionally narrowed by pass type and device.
    /// - Throws: ``WalletError`` `notFound` when none matches, ``StorageError``.
    public func show(_ query: PassQuery) async throws -> [PassRecord] {
        let records = try await store.reading(logger: logger) { store in try await store.passes(matching: query) }
        guard !records.isEmpty else { throw WalletError.notFound(query) }
        return records
    }

    /// Streams all records (or those in one state) in serial order, without loading them all.
    public func forEach(state: PassState? = nil, _ body: (PassRecord) throws -> Void) async throws {
        try await store.reading(logger: logger) { store in try await store.forEachPass(state: state, body) }
    }

    /// Removes the one record that matches.
    /// - Throws: ``WalletError`` `notFound`, or `ambiguous` when several match (name the
    ///   device), ``StorageError``.
    public func remove(_ query: PassQuery) async throws -> PassRecord {
        @Sendable func single(_ matches: [PassRecord]) throws -> PassRecord {
            guard let record = matches.first else { throw WalletError.notFound(query) }
            guard matches.count == 1 else { throw WalletError.ambiguous(query, matches: matches) }
            return record
        }
        let record = try await store.using(logger: logger) { store in
            try await store.removePass(matching: query, choose: single)
        }
        logger.info("wallet.removed", metadata: ["serial": "\(Mask.identifier(record.serialNumber))"])
        return record
    }

    /// Upserts every row of a CSV or JSON Lines input in one transaction; at the first
    /// bad row nothing is written.
    ///
    /// - Parameters:
    ///   - format: the input format; inferred from the extension, else from the content.
    ///   - progress: called now and then with the bytes read.
    /// - Throws: ``ImportError`` naming the line and reason, ``StorageError``.
    /// - Parameter overwriteState: let the file's state move an activated or activating pass
    ///   back (by default such a state is kept and counted in ``ImportSummary/keptStates``).
    public func importRecords(
        from input: ImportInput, format: WalletFileFormat? = nil, overwriteState: Bool = false,
        progress: ImportProgress? = nil
    ) async throws -> ImportSummary {
        let importer = WalletImporter(input: input, format: format, progress: progress, overwriteState: overwriteState)
        let summary = try await store.using(logger: logger) { store in try await importer.run(on: store) }
        logger.info("wallet.imported", metadata: ["rows": "\(summary.rows)", "inserted": "\(summary.inserted)"])
        return summary
    }

    /// Writes every record, whole, as CSV (with the import header) or JSON Lines.
    /// - Parameter write: receives the output a line at a time, each ending in a newline.
    public func export(format: WalletFileFormat, _ write: (String) throws -> Void) async throws {
        if format == .csv { try write(WalletExporter.header + "\n") }
        try await forEach { record in
            switch format {
            case .csv: try write(WalletExporter.csvLine(record) + "\n")
            case .jsonl: try write(record.json(reveal: true).text + "\n")
            }
        }
    }
}

import GRDB
import WalletModel

/// SQL access to the `pass_record` table. Callers provide the transaction.
enum WalletRepository {
    static let columns =
        "pass_type_identifier, serial_number, device_account_identifier, state, device_label, card_suffix"
    static let order = "ORDER BY serial_number, pass_type_identifier, device_account_identifier"

    /// Inserts a new record, or says what it collides with.
    static func insert(_ record: PassRecord, _ db: Database) throws -> PassInsertion {
        do {
            try db.execute(
                sql: "INSERT INTO pass_record (\(columns)) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    record.passTypeIdentifier, record.serialNumber, record.deviceAccountIdentifier,
                    record.state.rawValue, record.device, record.cardSuffix,
                ]
            )
            return .inserted
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return try exists(record, db) ? .duplicate : .conflict
        }
    }

    static func exists(_ record: PassRecord, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql:
                "SELECT 1 FROM pass_record WHERE serial_number = ? AND pass_type_identifier = ? AND device_account_identifier = ?",
            arguments: [record.serialNumber, record.passTypeIdentifier, record.deviceAccountIdentifier]
        ) ?? false
    }

    /// One statement for every query: absent filters are NULL and match everything.
    private static let recordsMatching = """
        SELECT \(columns) FROM pass_record
        WHERE serial_number = ?1 AND (?2 IS NULL OR pass_type_identifier = ?2) AND (?3 IS NULL OR device_label = ?3)
        \(order)
        """

    /// Read through the C API: an activation runs this once, inside the shared transaction
    /// the batch's database writer writes, where GRDB's rows cost more than the query
    /// (Benchmarks/README.md, "Measured shapes").
    static func records(matching query: PassQuery, _ db: Database) throws -> [PassRecord] {
        let select = DirectStatement(try db.cachedStatement(sql: recordsMatching), db)
        select.bind(1, query.serialNumber)
        select.bind(2, query.passTypeIdentifier)
        select.bind(3, query.device)
        var records: [PassRecord] = []
        try select.forEachRow { row in
            records.append(
                PassRecord(
                    passTypeIdentifier: row.text(0) ?? "", serialNumber: row.text(1) ?? "",
                    deviceAccountIdentifier: row.text(2) ?? "",
                    state: try PassState.stored(row.text(3)), device: row.text(4),
                    cardSuffix: row.text(5)
                ))
        }
        return records
    }

    /// Bound through the C API, like the audit's insert: an activation runs this twice.
    static func setState(_ state: PassState, of record: PassRecord, _ db: Database) throws {
        let update = DirectStatement(
            try db.cachedStatement(
                sql:
                    "UPDATE pass_record SET state = ? WHERE serial_number = ? AND pass_type_identifier = ? AND device_account_identifier = ?"
            ), db)
        update.bind(1, state.rawValue)
        update.bind(2, record.serialNumber)
        update.bind(3, record.passTypeIdentifier)
        update.bind(4, record.deviceAccountIdentifier)
        _ = try update.run()
    }

    static func delete(_ record: PassRecord, _ db: Database) throws {
        try db.execute(
            sql:
                "DELETE FROM pass_record WHERE serial_number = ? AND pass_type_identifier = ? AND device_account_identifier = ?",
            arguments: [record.serialNumber, record.passTypeIdentifier, record.deviceAccountIdentifier]
        )
    }

    /// The records in state `activating`; the state is written out so that SQLite uses the
    /// partial index `pass_record_activating` (a bound value would not match it).
    static func activating(_ db: Database) throws -> [PassRecord] {
        try Row.fetchAll(db, sql: "SELECT \(columns) FROM pass_record WHERE state = 'activating' \(order)").map(record)
    }

    /// The unique index that lets a device label name at most one pass of a serial (as
    /// created by the schema's migrations), dropped and built again by an import into an
    /// empty wallet.
    static func dropDeviceIndex(_ db: Database) throws {
        try db.execute(sql: "DROP INDEX pass_record_device")
    }

    /// - Throws: a constraint `DatabaseError` when two records break the label's uniqueness.
    static func createDeviceIndex(_ db: Database) throws {
        try db.execute(
            sql:
                "CREATE UNIQUE INDEX pass_record_device ON pass_record (serial_number, pass_type_identifier, ifnull(device_label, ''))"
        )
    }

    /// Up to `limit` records after `after` (from the first when nil), in serial order; only
    /// those in `state` when given.
    static func page(after: PassRecord?, state: PassState? = nil, limit: Int, _ db: Database) throws -> [PassRecord] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT \(columns) FROM pass_record
                WHERE (serial_number, pass_type_identifier, device_account_identifier) > (?, ?, ?) AND (?4 IS NULL OR state = ?4)
                \(order) LIMIT \(limit)
                """,
            arguments: [
                after?.serialNumber ?? "", after?.passTypeIdentifier ?? "", after?.deviceAccountIdentifier ?? "",
                state?.rawValue,
            ]
        ).map(record)
    }

    static func count(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM pass_record") ?? 0
    }

    /// Inserts or, when (pass type, serial, device account id) exists, updates the values
    /// that were given; values not given keep what is stored.
    /// The upsert of an import. A stored `activated` or `activating` pass is never moved back
    /// to `requiresActivation` (or to `activating`) unless ?7 (overwrite) is 1: that would send
    /// it again. Each state kept that way calls `tokenctl_state_kept()`, which counts it and
    /// answers false, so the WHERE clause still skips a row nothing else changes.
    static func makeUpsert(_ db: Database) throws -> Statement {
        let kept = """
            (?7 = 0 AND state IN ('activated', 'activating') AND ?4 IN ('requiresActivation', 'activating') AND state IS NOT ?4)
            """
        return try db.makeStatement(
            sql: """
                INSERT INTO pass_record (\(columns))
                VALUES (?1, ?2, ?3, ifnull(?4, 'requiresActivation'), ?5, ?6)
                ON CONFLICT (serial_number, pass_type_identifier, device_account_identifier) DO UPDATE SET
                    state = CASE WHEN \(kept) THEN state ELSE ifnull(?4, state) END,
                    device_label = ifnull(?5, device_label),
                    card_suffix = ifnull(?6, card_suffix)
                -- Rewriting an unchanged row costs as much as a change: skip it.
                WHERE (\(kept) AND tokenctl_state_kept())
                   OR (NOT \(kept) AND state IS NOT ifnull(?4, state))
                   OR device_label IS NOT ifnull(?5, device_label)
                   OR card_suffix IS NOT ifnull(?6, card_suffix)
                """)
    }

    /// - Returns: whether a row was inserted or changed (false when it was already equal).
    ///
    /// Binds and steps through the SQLite C API: an import runs this once per row, and
    /// GRDB's argument boxing and per-call checks cost more than the insert itself
    /// (measured on 1,000,000 rows, Benchmarks/wallet.sh).
    static func upsert(
        _ fields: ValidatedPassFields, overwriteState: Bool, with statement: Statement, _ db: Database
    ) throws -> Bool {
        let direct = DirectStatement(statement, db)
        direct.bind(7, overwriteState ? 1 : 0)
        direct.bind(1, fields.passTypeIdentifier)
        direct.bind(2, fields.serialNumber)
        direct.bind(3, fields.deviceAccountIdentifier)
        direct.bind(4, fields.state?.rawValue)
        direct.bind(5, fields.device)
        direct.bind(6, fields.cardSuffix)
        return try direct.run() > 0
    }

    private static func record(_ row: Row) throws -> PassRecord {
        PassRecord(
            passTypeIdentifier: row[0], serialNumber: row[1], deviceAccountIdentifier: row[2],
            state: try PassState.stored(row[3]), device: row[4], cardSuffix: row[5]
        )
    }
}

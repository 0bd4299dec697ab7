import Logging
import NIOCore
import PostgresNIO
import WalletModel

extension PostgresStore {
    static let passColumns =
        "pass_type_identifier, serial_number, device_account_identifier, state, device_label, card_suffix"
    static let passOrder = "ORDER BY serial_number, pass_type_identifier, device_account_identifier"

    public func insertPass(_ row: PassRecord) async throws -> PassInsertion {
        do {
            try await query(
                """
                INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier, state, device_label, card_suffix)
                VALUES (\(row.passTypeIdentifier), \(row.serialNumber), \(row.deviceAccountIdentifier), \(row.state.rawValue), \(row.device), \(row.cardSuffix))
                """)
            return .inserted
        } catch  where Self.sqlState(error) == State.uniqueViolation {
            let same = try await query(
                """
                SELECT 1 FROM pass_record WHERE serial_number = \(row.serialNumber)
                AND pass_type_identifier = \(row.passTypeIdentifier) AND device_account_identifier = \(row.deviceAccountIdentifier)
                """)
            return same.isEmpty ? .conflict : .duplicate
        }
    }

    /// The records of a serial, narrowed by pass type and device label when given.
    public func passes(matching query: PassQuery) async throws -> [PassRecord] {
        let (serialNumber, passTypeIdentifier, device) = (query.serialNumber, query.passTypeIdentifier, query.device)
        return try await self.query(
            """
            SELECT \(unescaped: Self.passColumns) FROM pass_record
            WHERE serial_number = \(serialNumber) AND (\(passTypeIdentifier)::text IS NULL OR pass_type_identifier = \(passTypeIdentifier))
              AND (\(device)::text IS NULL OR device_label = \(device))
            \(unescaped: Self.passOrder)
            """
        ).map(Self.passRow)
    }

    /// Removes the record `choose` picks among those of a query, in one transaction with
    /// them locked.
    public func removePass(
        matching query: PassQuery, choose: @escaping @Sendable ([PassRecord]) throws -> PassRecord
    ) async throws -> PassRecord {
        let (serialNumber, passTypeIdentifier, device) = (query.serialNumber, query.passTypeIdentifier, query.device)
        return try await transaction { connection in
            let rows = try await connection.answer(
                """
                SELECT \(unescaped: Self.passColumns) FROM pass_record
                WHERE serial_number = \(serialNumber) AND (\(passTypeIdentifier)::text IS NULL OR pass_type_identifier = \(passTypeIdentifier))
                  AND (\(device)::text IS NULL OR device_label = \(device))
                \(unescaped: Self.passOrder) FOR UPDATE
                """, logger
            ).map(Self.passRow)
            let row = try choose(rows)
            _ = try await connection.answer(
                """
                DELETE FROM pass_record WHERE serial_number = \(row.serialNumber)
                AND pass_type_identifier = \(row.passTypeIdentifier) AND device_account_identifier = \(row.deviceAccountIdentifier)
                """, logger)
            return row
        }
    }

    /// Streams the records (or those in one state) in serial order, 10,000 at a time through a
    /// cursor, from one snapshot.
    public func forEachPass(state: PassState?, _ body: (PassRecord) throws -> Void) async throws {
        let state = state?.rawValue
        try await streaming(
            """
            SELECT \(unescaped: Self.passColumns) FROM pass_record
            WHERE \(state)::text IS NULL OR state = \(state) \(unescaped: Self.passOrder)
            """
        ) { row in try body(try Self.passRow(row)) }
    }

    public func activatingPasses() async throws -> [PassRecord] {
        try await query(
            "SELECT \(unescaped: Self.passColumns) FROM pass_record WHERE state = 'activating' \(unescaped: Self.passOrder)"
        ).map(Self.passRow)
    }

    /// This database as a copy's source: each page one statement, awaited.
    public func copySource(pageSize: Int) async throws -> StoreCopy {
        let passes = PageReader(pageSize: pageSize) { (after: PassRecord?) in
            let (serial, type, account) = (
                after?.serialNumber ?? "", after?.passTypeIdentifier ?? "", after?.deviceAccountIdentifier ?? ""
            )
            return try await self.query(
                """
                SELECT \(unescaped: Self.passColumns) FROM pass_record
                WHERE (serial_number, pass_type_identifier, device_account_identifier) > (\(serial), \(type), \(account))
                \(unescaped: Self.passOrder) LIMIT \(pageSize)
                """
            ).map(Self.passRow)
        }
        let audit = PageReader(pageSize: pageSize) { (after: StoredAuditRow?) in
            try await self.query(Self.auditPage(after: after?.seq ?? 0, limit: pageSize)).map(Self.storedRow)
        }
        return StoreCopy(
            passes: passes, auditRows: audit, deeplinkHashKey: try await deeplinkHashKey(), state: self)
    }

    static func passRow(_ row: PostgresRow) throws -> PassRecord {
        let (type, serial, account, stateName, device, suffix) = try row.decode(
            (String, String, String, String, String?, String?).self)
        let state = try PassState.stored(stateName)
        return PassRecord(
            passTypeIdentifier: type, serialNumber: serial, deviceAccountIdentifier: account, state: state,
            device: device, cardSuffix: suffix)
    }
}

extension PostgresStore {
    /// Imports rows in one transaction: streamed with COPY into a temporary table, then merged
    /// into the wallet with two statements (update what exists, insert what does not). A key
    /// repeated in the input counts with its last row. Stored `activated` / `activating`
    /// states are kept unless `overwriteState`, as on SQLite. The wallet is locked against
    /// other writers for the merge only.
    public func importPasses(_ rows: PassImport) async throws -> PassImportResult {
        let overwriteState = rows.overwriteState
        return try await transaction { connection in
            try await connection.run(
                """
                CREATE TEMP TABLE import_row (line bigint, pass_type_identifier text, serial_number text,
                    device_account_identifier text, state text, device_label text, card_suffix text) ON COMMIT DROP
                """, logger)
            try await Self.copy(into: "import_row", on: connection, logger: logger) {
                guard let chunk = try await rows.nextChunk() else { return nil }
                var buffer = ByteBuffer()
                for (line, row) in chunk {
                    Self.appendCopyLine(
                        [
                            String(line), row.passTypeIdentifier, row.serialNumber, row.deviceAccountIdentifier,
                            row.state?.rawValue, row.device, row.cardSuffix,
                        ], to: &buffer)
                }
                return buffer
            }
            let kept =
                "(NOT \(overwriteState) AND p.state IN ('activated', 'activating') AND i.state IN ('requiresActivation', 'activating') AND p.state <> i.state)"
            let matches =
                "p.serial_number = i.serial_number AND p.pass_type_identifier = i.pass_type_identifier AND p.device_account_identifier = i.device_account_identifier"
            try await connection.run(
                """
                CREATE TEMP TABLE import_latest ON COMMIT DROP AS
                    SELECT DISTINCT ON (serial_number, pass_type_identifier, device_account_identifier) * FROM import_row
                    ORDER BY serial_number, pass_type_identifier, device_account_identifier, line DESC
                """, logger)
            try await connection.run("LOCK TABLE pass_record IN SHARE ROW EXCLUSIVE MODE", logger)
            try await connection.run("SAVEPOINT merge", logger)
            do {
                let keptStates = try await Self.count(
                    connection, "SELECT count(*) FROM import_latest i JOIN pass_record p ON \(matches) WHERE \(kept)",
                    logger)
                let updated = try await Self.count(
                    connection,
                    """
                    WITH changed AS (
                        UPDATE pass_record p SET
                            state = CASE WHEN \(kept) THEN p.state ELSE coalesce(i.state, p.state) END,
                            device_label = coalesce(i.device_label, p.device_label),
                            card_suffix = coalesce(i.card_suffix, p.card_suffix)
                        FROM import_latest i
                        WHERE \(matches)
                          AND ((NOT \(kept) AND p.state IS DISTINCT FROM coalesce(i.state, p.state))
                               OR p.device_label IS DISTINCT FROM coalesce(i.device_label, p.device_label)
                               OR p.card_suffix IS DISTINCT FROM coalesce(i.card_suffix, p.card_suffix))
                        RETURNING 1)
                    SELECT count(*) FROM changed
                    """, logger)
                let inserted = try await Self.count(
                    connection,
                    """
                    WITH added AS (
                        INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier, state, device_label, card_suffix)
                        SELECT i.pass_type_identifier, i.serial_number, i.device_account_identifier, coalesce(i.state, 'requiresActivation'),
                               i.device_label, i.card_suffix
                        FROM import_latest i WHERE NOT EXISTS (SELECT 1 FROM pass_record p WHERE \(matches))
                        RETURNING 1)
                    SELECT count(*) FROM added
                    """, logger)
                return .imported(inserted: inserted, updated: updated, keptStates: keptStates)
            } catch  where Self.sqlState(error) == State.uniqueViolation {
                try await connection.run("ROLLBACK TO SAVEPOINT merge", logger)
                return try await Self.firstConflict(connection, logger)
            }
        }
    }

    /// The first input line whose device label, as it would be stored, is held by another
    /// record of its serial and pass type (stored, or earlier in the input).
    private static func firstConflict(
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> PassImportResult {
        let rows = try await connection.answer(
            """
            WITH final AS (
                SELECT i.line, i.serial_number, i.pass_type_identifier, i.device_account_identifier,
                       coalesce(i.device_label, p.device_label) AS label
                FROM import_latest i LEFT JOIN pass_record p USING (serial_number, pass_type_identifier, device_account_identifier)
                UNION ALL
                SELECT NULL, p.serial_number, p.pass_type_identifier, p.device_account_identifier, p.device_label
                FROM pass_record p
                WHERE NOT EXISTS (SELECT 1 FROM import_latest i WHERE i.serial_number = p.serial_number
                    AND i.pass_type_identifier = p.pass_type_identifier AND i.device_account_identifier = p.device_account_identifier)
            ), ranked AS (
                SELECT line, count(*) OVER (PARTITION BY serial_number, pass_type_identifier, coalesce(label, '')) AS holders,
                       row_number() OVER (PARTITION BY serial_number, pass_type_identifier, coalesce(label, '') ORDER BY line NULLS FIRST) AS place
                FROM final
            )
            SELECT r.line, i.pass_type_identifier, i.serial_number, i.device_account_identifier, i.state, i.device_label, i.card_suffix
            FROM ranked r JOIN import_latest i ON i.line = r.line
            WHERE r.holders > 1 AND r.place > 1 ORDER BY r.line LIMIT 1
            """, logger)
        guard let row = rows.first else {
            throw StorageError(
                .storageIO, "PostgreSQL refused the import's rows for a uniqueness rule tokenctl could not place")
        }
        let (line, type, serial, account, state, device, suffix) = try row.decode(
            (Int, String, String, String, String?, String?, String?).self)
        return .conflict(
            line: line,
            ValidatedPassFields(
                serialNumber: serial, deviceAccountIdentifier: account, passTypeIdentifier: type,
                state: try state.map { name throws(StorageError) in try PassState.stored(name) }, device: device,
                cardSuffix: suffix
            ))
    }

    private static func count(_ connection: PostgresConnection, _ sql: String, _ logger: Logger) async throws -> Int {
        try await connection.answer(PostgresQuery(unsafeSQL: sql), logger).first?.decode(Int.self) ?? 0
    }

    /// Streams `buffers` into `table` with COPY (text format) until it gives nil.
    static func copy(
        into table: String, columns: [String] = [], on connection: PostgresConnection, logger: Logger,
        buffers: () async throws -> ByteBuffer?
    ) async throws {
        try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
            while let buffer = try await buffers() {
                try await writer.write(buffer)
            }
        }
    }

    /// One row in COPY's text format: tab-separated, `\N` for NULL, backslash escapes.
    static func appendCopyLine(_ fields: [String?], to buffer: inout ByteBuffer) {
        for (index, field) in fields.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
            guard let field else {
                buffer.writeStaticString("\\N")
                continue
            }
            for byte in field.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                default: buffer.writeInteger(byte)
                }
            }
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }
}

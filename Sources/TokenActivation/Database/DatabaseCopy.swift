import Foundation
import GRDB
import Logging
import PostgresStorage
import Storage

/// What `tokenctl db copy` moved.
public struct CopyReport: Sendable, Equatable {
    public let passes: Int
    public let auditRows: Int
    /// Rows of the onboarding core's state (device activation, process, login user, verification).
    public let stateRows: Int
    /// The target's audit chain, verified after the copy.
    public let verifiedRows: Int
}

/// `tokenctl db copy`: moves a database's wallet, audit and onboarding state between SQLite
/// and PostgreSQL, in one transaction on the target.
/// The target must be empty; audit rows keep their order and hashes (each one checked as it
/// is written), the deeplink hash key goes along, and the target's chain is verified after.
/// Run it with no handler writing the source.
public struct DatabaseCopy: Sendable {
    let source: Settings
    let target: Settings
    let logger: Logger

    public init(from source: Settings, to target: Settings, logger: Logger = Logger(label: "tokenctl.database")) {
        self.source = source
        self.target = target
        self.logger = logger
    }

    public func run() throws -> CopyReport {
        let copied: (passes: Int, auditRows: Int, stateRows: Int)
        switch (source.postgres, target.postgres) {
        case (nil, let postgres?):
            copied = try Store.using(source.database, logger: logger) { store in try toPostgres(from: store, postgres) }
        case (let postgres?, nil):
            copied = try toSQLite(from: postgres)
        default:
            throw StorageError(.storageUnsupported, "db copy moves between SQLite and PostgreSQL: one side must be a file (--database), the other a postgres:// URL")
        }
        let (rows, broken) = try Audit(settings: target, logger: logger).verify()
        if let broken {
            throw AuditError.chainBroken(broken)
        }
        logger.info("database.copied", metadata: ["passes": "\(copied.passes)", "audit-rows": "\(copied.auditRows)", "state-rows": "\(copied.stateRows)"])
        return CopyReport(passes: copied.passes, auditRows: copied.auditRows, stateRows: copied.stateRows, verifiedRows: rows)
    }

    private func toPostgres(from store: Store, _ options: PostgresOptions) throws -> (passes: Int, auditRows: Int, stateRows: Int) {
        let key = try store.read { try AuditLog.deeplinkHashKey($0) }
        let expected = try store.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM pass_record") ?? 0, try Int.fetchOne(db, sql: "SELECT count(*) FROM audit_row") ?? 0)
        }
        let postgres = try PostgresStore(options: options, logger: logger, checkingSchema: false)
        defer { postgres.close() }
        try postgres.migrate()
        var passes = SQLitePages<PassRow>(
            store: store,
            sql: "SELECT \(WalletRepository.columns) FROM pass_record WHERE (serial_number, pass_type_identifier, device_account_identifier) > (?, ?, ?) \(WalletRepository.order)",
            start: ["", "", ""], key: { [$0.serialNumber, $0.passTypeIdentifier, $0.deviceAccountIdentifier] }
        ) { row in
            PassRow(passTypeIdentifier: row[0], serialNumber: row[1], deviceAccountIdentifier: row[2], state: row[3], device: row[4], cardSuffix: row[5])
        }
        var audit = SQLitePages<StoredAuditRow>(store: store, sql: "SELECT * FROM audit_row WHERE seq > ? ORDER BY seq", start: [0], key: { [$0.seq] }) { row in
            StoredAuditRow(
                seq: row["seq"],
                values: AuditRowValues(
                    attempt: row["attempt_id"], event: row["event"], at: row["at"], request: row["request_id"], serial: row["serial_number"],
                    passType: row["pass_type_identifier"], token: row["token_unique_reference"], device: row["device_label"],
                    deeplink: row["deeplink_hash"], pid: row["owner_pid"], ownerStart: row["owner_start"], outcome: row["outcome"],
                    error: row["error_code"], http: row["http_status"], last4: row["card_last4"], comment: row["comment"],
                    latency: row["latency_ms"], rest: ""
                ),
                previousHash: row["previous_hash"], hash: row["hash"]
            )
        }
        let copied = try postgres.load(passes: { try passes.next() }, auditRows: { try audit.next() }, deeplinkHashKey: key) { target in
            try StateTables.copy(from: store, into: target)
        }
        guard (copied.passes, copied.auditRows) == expected else {
            throw StorageError(.storageIO, "the source changed during the copy (\(expected.0) records and \(expected.1) audit rows before, \(copied.passes) and \(copied.auditRows) read); stop the handlers and copy again into an empty database")
        }
        return copied
    }

    private func toSQLite(from options: PostgresOptions) throws -> (passes: Int, auditRows: Int, stateRows: Int) {
        let postgres = try PostgresStore(options: options, logger: logger)
        defer { postgres.close() }
        let key = try postgres.deeplinkHashKey()
        return try Store.using(target.database, logger: logger) { store in
            try store.write { db in
                let statements = SQLiteStatements(db)
                let held = (try WalletRepository.count(db), try Int.fetchOne(db, sql: "SELECT count(*) FROM audit_row") ?? 0)
                let heldState = try StateTables.held(statements)
                guard held == (0, 0), heldState.isEmpty else {
                    throw StorageError.targetNotEmpty(target.database.path, passes: held.0, auditRows: held.1, stateTables: heldState)
                }
                var passes = 0
                try postgres.forEachPass(state: nil) { row in
                    try WalletRepository.insert(PassRecord(row: row), db)
                    passes += 1
                }
                var rows = 0
                var previous = AuditRow.genesisHash
                try postgres.forEachAuditRow { stored in
                    guard let row = AuditRow(stored: stored.values), stored.previousHash == previous else {
                        throw AuditError.chainBroken(BrokenRow(seq: stored.seq, entryID: stored.values.attempt, event: stored.values.event, reason: "the source's chain breaks here; nothing was copied"))
                    }
                    previous = try AuditLog.append(row, previous: previous, db)
                    guard previous == stored.hash else {
                        throw AuditError.chainBroken(BrokenRow(seq: stored.seq, entryID: stored.values.attempt, event: stored.values.event, reason: "its content does not match its hash in the source; nothing was copied"))
                    }
                    rows += 1
                }
                try db.execute(sql: "UPDATE metadata SET value = ? WHERE key = 'deeplink-hash-key'", arguments: [Data(key)])
                return (passes, rows, try StateTables.copy(from: postgres, into: statements))
            }
        }
    }
}

/// Reads a SQLite query 10,000 rows at a time, each page in its own read after the last
/// key of the one before (the rows go to PostgreSQL from another thread, where a cursor of
/// an open read cannot be used).
private struct SQLitePages<Value> {
    let store: Store
    /// The query, taking the last key as its parameters.
    let sql: String
    let key: (Value) -> StatementArguments
    let make: (Row) -> Value
    private var after: StatementArguments
    private var page: [Value] = []
    private var index = 0
    private var done = false

    init(store: Store, sql: String, start: StatementArguments, key: @escaping (Value) -> StatementArguments, make: @escaping (Row) -> Value) {
        self.store = store
        self.sql = sql
        self.key = key
        self.make = make
        after = start
    }

    mutating func next() throws -> Value? {
        if index == page.count {
            guard !done else { return nil }
            let (sql, after, make) = (self.sql, self.after, self.make)
            page = try store.read { db in try Row.fetchAll(db, sql: sql + " LIMIT 10000", arguments: after).map(make) }
            index = 0
            done = page.count < 10000
            guard let last = page.last else { return nil }
            self.after = key(last)
        }
        defer { index += 1 }
        return page[index]
    }
}

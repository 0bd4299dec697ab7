import GRDB
import Logging
import PostgresStorage
import Storage

/// The library side of `tokenctl audit …`.
public struct Audit: Sendable {
    private let settings: Settings
    private let logger: Logger

    public init(settings: Settings, logger: Logger = Logger(label: "tokenctl.audit")) {
        self.settings = settings
        self.logger = logger
    }

    /// Streams the entries matching `filter`, oldest first.
    public func forEach(_ filter: AuditFilter, _ body: (AuditEntry) throws -> Void) throws {
        try OpenBackend.using(settings, logger: logger) { backend in
            switch backend {
            case .sqlite(let store):
                try store.read { db in try AuditLog.forEachEntry(filter, db, body) }
            case .postgres(let store):
                let stored = StoredAuditFilter(
                    serialNumber: filter.serialNumber, outcome: filter.outcome, since: filter.since?.iso8601,
                    until: filter.until?.iso8601, attemptID: filter.id, unfinished: filter.unfinished
                )
                try store.forEachAuditEntry(stored) { try body(AuditEntry(stored: $0)) }
            }
        }
    }

    /// Checks the hash chain over every row.
    /// - Returns: nil when it holds, else the first broken row and why.
    public func verify() throws -> (rows: Int, broken: BrokenRow?) {
        try OpenBackend.using(settings, logger: logger) { backend in
            switch backend {
            case .sqlite(let store):
                try store.read { db in
                    (try Int.fetchOne(db, sql: "SELECT count(*) FROM audit_row") ?? 0, try AuditLog.firstBrokenRow(db))
                }
            case .postgres(let store):
                try Self.verify(store)
            }
        }
    }

    private static func verify(_ store: PostgresStore) throws -> (rows: Int, broken: BrokenRow?) {
        var chain = ChainCheck()
        var rows = 0
        var broken: BrokenRow?
        try store.forEachAuditRow { row in
            guard broken == nil else { return }
            rows += 1
            broken = chain.check(
                seq: row.seq, entryID: row.values.attempt, event: row.values.event, previousHash: row.previousHash,
                hash: row.hash, content: AuditRow(stored: row.values)
            )
        }
        return (rows, broken)
    }
}

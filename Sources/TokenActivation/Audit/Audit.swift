import GRDB
import Logging
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
        try withStore { store in try store.read { db in try AuditLog.forEachEntry(filter, db, body) } }
    }

    /// Checks the hash chain over every row.
    /// - Returns: nil when it holds, else the first broken row and why.
    public func verify() throws -> (rows: Int, broken: BrokenRow?) {
        try withStore { store in
            try store.read { db in
                (try Int.fetchOne(db, sql: "SELECT count(*) FROM audit_row") ?? 0, try AuditLog.firstBrokenRow(db))
            }
        }
    }

    private func withStore<T>(_ body: (Store) throws -> T) throws -> T {
        try Store.using(settings.database, logger: logger, body)
    }
}

import Logging
import WalletModel

/// The library side of `tokenctl audit …`.
public struct Audit: Sendable {
    private let store: any StoreDriver
    private let logger: Logger

    public init(store: any StoreDriver, logger: Logger = Logger(label: "tokenctl.audit")) {
        self.store = store
        self.logger = logger
    }

    /// Streams the entries matching `filter`, oldest first.
    public func forEach(_ filter: AuditFilter, _ body: (AuditEntry) throws -> Void) throws {
        try store.using(logger: logger) { store in try store.forEachAuditEntry(filter, body) }
    }

    /// Checks the hash chain over every row.
    /// - Returns: the rows, and nil when the chain holds, else the first broken row and why.
    public func verify() throws -> (rows: Int, broken: BrokenRow?) {
        try store.using(logger: logger) { store in try ChainCheck.verify(store.forEachAuditRow) }
    }
}

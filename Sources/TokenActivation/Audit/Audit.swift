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
    public func forEach(_ filter: AuditFilter, _ body: (AuditEntry) throws -> Void) async throws {
        try await store.reading(logger: logger) { store in try await store.forEachAuditEntry(filter, body) }
    }

    /// Checks the hash chain over every row.
    /// - Returns: the rows, and nil when the chain holds, else the first broken row and why.
    public func verify() async throws -> (rows: Int, broken: BrokenRow?) {
        try await store.reading(logger: logger) { store in try await ChainCheck.verify(store.forEachAuditRow) }
    }
}

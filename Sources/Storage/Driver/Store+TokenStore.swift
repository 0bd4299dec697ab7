import Foundation
import GRDB
import WalletModel

extension Store: TokenStore {
    public func passes(matching query: PassQuery) async throws -> [PassRecord] {
        try await readStatement { db in try WalletRepository.records(matching: query, db) }
    }

    public func insertPass(_ record: PassRecord) async throws -> PassInsertion {
        try await write { db in try WalletRepository.insert(record, db) }
    }

    public func removePass(
        matching query: PassQuery, choose: @escaping @Sendable ([PassRecord]) throws -> PassRecord
    ) async throws -> PassRecord {
        try await write { db in
            let record = try choose(try WalletRepository.records(matching: query, db))
            try WalletRepository.delete(record, db)
            return record
        }
    }

    public func forEachPass(state: PassState?, _ body: (PassRecord) throws -> Void) async throws {
        try await forEachPage(from: nil, next: { $0 }, body) { after, limit, db in
            try WalletRepository.page(after: after, state: state, limit: limit, db)
        }
    }

    public func activatingPasses() async throws -> [PassRecord] {
        try await read { db in try WalletRepository.activating(db) }
    }

    public func deeplinkHashKey() async throws -> [UInt8] {
        try await read { try AuditLog.deeplinkHashKey($0) }
    }

    public func forEachAuditEntry(_ filter: AuditFilter, _ body: (AuditEntry) throws -> Void) async throws {
        // The newest few are one read, from the end of the audit.
        let pageLimit = filter.newest == nil ? nil : Int.max
        try await forEachPage(from: Int64(0), next: \.id, body) { after, limit, db in
            var entries: [AuditEntry] = []
            try AuditLog.forEachEntry(filter, after: after, limit: pageLimit ?? limit, db) { entries.append($0) }
            return entries
        }
    }

    public func forEachAuditRow(_ body: (StoredAuditRow) throws -> Void) async throws {
        try await forEachPage(from: Int64(0), next: \.seq, body) { after, limit, db in
            try AuditLog.rows(after: after, limit: limit, db)
        }
    }

    /// The rows a page at a time, each page one read on GRDB's readers, from the one after
    /// `start`; `body` runs in the caller's task between the reads.
    private func forEachPage<Position: Sendable, Element: Sendable>(
        from start: Position, next: (Element) -> Position, _ body: (Element) throws -> Void,
        page: @escaping @Sendable (Position, Int, Database) throws -> [Element]
    ) async throws {
        var after = start
        while true {
            let elements = try await read { [after] db in try page(after, Self.pageSize, db) }
            for element in elements { try body(element) }
            guard elements.count == Self.pageSize, let last = elements.last else { return }
            after = next(last)
        }
    }

    /// The rows a stream reads at once.
    static let pageSize = 2_000

    public func ledger() -> any AttemptLedger {
        SQLiteLedger(store: self)
    }

    public func counts() async throws -> (passes: Int, auditRows: Int) {
        try await read { db in (try WalletRepository.count(db), try AuditLog.count(db)) }
    }

    public func copySource(pageSize: Int) async throws -> StoreCopy {
        let passes = PageReader(pageSize: pageSize) { after in
            try await self.read { db in try WalletRepository.page(after: after, limit: pageSize, db) }
        }
        let audit = PageReader(pageSize: pageSize) { (after: StoredAuditRow?) in
            try await self.read { db in try AuditLog.rows(after: after?.seq ?? 0, limit: pageSize, db) }
        }
        return StoreCopy(
            passes: passes, auditRows: audit, deeplinkHashKey: try await deeplinkHashKey(), state: self)
    }

    public func auditPage(after seq: Int64, limit: Int) async throws -> [StoredAuditRow] {
        try await read { db in try AuditLog.rows(after: seq, limit: limit, db) }
    }
}

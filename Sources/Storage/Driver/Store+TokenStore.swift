import Foundation
import GRDB
import WalletModel

extension Store: TokenStore {
    public func passes(matching query: PassQuery) throws -> [PassRecord] {
        try readStatement { db in try WalletRepository.records(matching: query, db) }
    }

    public func insertPass(_ record: PassRecord) throws -> PassInsertion {
        try write { db in try WalletRepository.insert(record, db) }
    }

    public func removePass(matching query: PassQuery, choose: ([PassRecord]) throws -> PassRecord) throws -> PassRecord
    {
        try write { db in
            let record = try choose(try WalletRepository.records(matching: query, db))
            try WalletRepository.delete(record, db)
            return record
        }
    }

    public func forEachPass(state: PassState?, _ body: (PassRecord) throws -> Void) throws {
        try read { db in try WalletRepository.forEach(state: state, db, body) }
    }

    public func activatingPasses() throws -> [PassRecord] {
        try read { db in try WalletRepository.activating(db) }
    }

    public func deeplinkHashKey() throws -> [UInt8] {
        try read { try AuditLog.deeplinkHashKey($0) }
    }

    public func forEachAuditEntry(_ filter: AuditFilter, _ body: (AuditEntry) throws -> Void) throws {
        try read { db in try AuditLog.forEachEntry(filter, db, body) }
    }

    public func forEachAuditRow(_ body: (StoredAuditRow) throws -> Void) throws {
        try read { db in try AuditLog.forEachRow(db, body) }
    }

    public func ledger() -> any AttemptLedger {
        SQLiteLedger(store: self)
    }

    public func counts() throws -> (passes: Int, auditRows: Int) {
        try read { db in (try WalletRepository.count(db), try AuditLog.count(db)) }
    }

    public func passPage(after: PassRecord?, limit: Int) throws -> [PassRecord] {
        try read { db in try WalletRepository.page(after: after, limit: limit, db) }
    }

    public func auditPage(after seq: Int64, limit: Int) throws -> [StoredAuditRow] {
        try read { db in
            var rows: [StoredAuditRow] = []
            try AuditLog.forEachRow(after: seq, limit: limit, db) { rows.append($0) }
            return rows
        }
    }

    public func load(_ copy: StoreCopy) throws -> CopyCounts {
        try write { db in
            let held = (try WalletRepository.count(db), try AuditLog.count(db))
            let heldState = try StateTables.snapshot(db).heldTables
            guard held == (0, 0), heldState.isEmpty else {
                throw StorageError.targetNotEmpty(
                    options.path, passes: held.0, auditRows: held.1, stateTables: heldState)
            }
            var passes = 0
            while let record = try copy.nextPass() {
                guard try WalletRepository.insert(record, db) == .inserted else {
                    throw StorageError(
                        .storageIO,
                        "the source holds two records that collide (serial \(Mask.identifier(record.serialNumber))); nothing was copied"
                    )
                }
                passes += 1
            }
            var rows = 0
            var chain = ChainCheck()
            while let stored = try copy.nextAuditRow() {
                let row = try chain.checkCopied(stored)
                _ = try AuditLog.append(row, previous: stored.previousHash, db)
                rows += 1
            }
            try db.execute(
                sql: "UPDATE metadata SET value = ? WHERE key = 'deeplink-hash-key'",
                arguments: [Data(copy.deeplinkHashKey)])
            let state = try copy.state.stateSnapshot()
            try StateTables.insert(state, db)
            return CopyCounts(passes: passes, auditRows: rows, stateRows: state.rowCount)
        }
    }
}

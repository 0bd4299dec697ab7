import GRDB
import TestSupport
import Testing
import WalletModel

@testable import Storage

@Suite struct AuditTailTests {
    let directory = TemporaryDirectory()

    func row(_ attemptID: Int64, _ event: AuditRow.Event) -> AuditRow {
        AuditRow(
            attemptID: attemptID, event: event, at: Timestamp(milliseconds: 1_764_000_000_000 + attemptID),
            requestID: "r\(attemptID)",
            serialNumber: "SN\(attemptID)", deeplinkHash: String(repeating: "ab", count: 32)
        )
    }

    /// Given rows appended through the tail (new attempts, an older attempt closed late, a
    /// step rolled back), the tail always says what the table says, and the chain verifies.
    @Test func theTailAgreesWithTheTable() throws {
        let store = try Store(options: StoreOptions(path: directory.file("wallet.sqlite")))
        let tail = AuditTail()
        func agrees(_ db: Database) throws {
            #expect(try AuditLog.nextAttemptID(db, tail: tail) == AuditLog.nextAttemptID(db))
            if let cached = tail.lastHash { #expect(cached == (try AuditLog.lastHash(db))) }
        }
        try store.write { db in
            tail.forget()
            let first = try AuditLog.nextAttemptID(db, tail: tail)
            #expect(first == 1)
            try AuditLog.append(row(first, .started), db, tail: tail)
            try agrees(db)
            let second = try AuditLog.nextAttemptID(db, tail: tail)
            try AuditLog.append(row(second, .started), db, tail: tail)
            try AuditLog.append(row(first, .finished), db, tail: tail)  // an older attempt closed after a newer one
            try agrees(db)
            try db.execute(sql: "SAVEPOINT step")
            try AuditLog.append(row(try AuditLog.nextAttemptID(db, tail: tail), .started), db, tail: tail)
            try db.execute(sql: "ROLLBACK TO SAVEPOINT step")
            tail.forget()
            try db.execute(sql: "RELEASE SAVEPOINT step")
            try agrees(db)
            try AuditLog.append(row(second, .finished), db, tail: tail)
            try agrees(db)
        }
        // Another writer between transactions: a new transaction forgets and reads again.
        try store.write { db in
            try AuditLog.append(row(try AuditLog.nextAttemptID(db), .started), previous: AuditLog.lastHash(db), db)
        }
        try store.write { db in
            tail.forget()
            try AuditLog.append(row(try AuditLog.nextAttemptID(db, tail: tail), .started), db, tail: tail)
            try agrees(db)
            #expect(try AuditLog.nextAttemptID(db) == 5)
        }
        var chain = ChainCheck()
        try store.read { db in try AuditLog.forEachRow(db) { #expect(chain.check($0) == nil) } }
        try store.close()
    }
}

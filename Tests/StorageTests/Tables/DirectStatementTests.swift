import GRDB
import TestSupport
import Testing
import WalletModel

@testable import Storage

/// The C-API binding used by the import and the audit stores exactly what GRDB would.
@Suite struct DirectStatementTests {
    @Test(arguments: ["", "plain", "é ✓ \u{1F600}", String(repeating: "x", count: 4096)])
    func textIsStoredAsGiven(_ text: String) throws {
        let directory = TemporaryDirectory()
        let store = try Store(options: StoreOptions(path: directory.file("direct.sqlite")))
        defer { try? store.close() }
        let stored: (String?, Int?, String?) = try store.write { db in
            try db.execute(sql: "CREATE TABLE t (a TEXT, b INTEGER, c TEXT)")
            let insert = DirectStatement(try db.cachedStatement(sql: "INSERT INTO t VALUES (?, ?, ?)"), db)
            insert.bind(1, text)
            insert.bind(2, Int(Int64.max))
            insert.bind(3, nil as String?)
            #expect(try insert.run() == 1)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT a, b, c FROM t"))
            return (row[0], row[1], row[2])
        }
        #expect(stored.0 == text)
        #expect(stored.1 == Int(Int64.max))
        #expect(stored.2 == nil)
    }

    @Test func aConstraintViolationIsADatabaseError() throws {
        let directory = TemporaryDirectory()
        let store = try Store(options: StoreOptions(path: directory.file("direct.sqlite")))
        defer { try? store.close() }
        try store.write { db in
            try db.execute(sql: "CREATE TABLE t (a TEXT UNIQUE)")
            let statement = try db.cachedStatement(sql: "INSERT INTO t VALUES (?)")
            let first = DirectStatement(statement, db)
            first.bind(1, "same")
            _ = try first.run()
            let second = DirectStatement(statement, db)
            second.bind(1, "same")
            #expect { try second.run() } throws: { ($0 as? DatabaseError)?.resultCode == .SQLITE_CONSTRAINT }
        }
    }
}

import Foundation
import GRDB
import TestSupport
import Testing
import WalletModel

@testable import Storage

@Suite struct StoreTests {
    let directory = TemporaryDirectory()

    @Test func createsTheFileWithOwnerOnlyPermissionsAndMigrates() throws {
        let path = directory.file("wallet.sqlite")
        let store = try Store(options: StoreOptions(path: path))

        let (journal, foreignKeys, tables) = try store.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Int.fetchOne(db, sql: "PRAGMA foreign_keys"),
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            )
        }
        #expect(journal == "wal")
        #expect(foreignKeys == 1)
        #expect(
            tables == [
                "v1-pass-records", "v2-activation-audit", "v3-powerauth-activation", "v4-onboarding-process",
                "v5-pin-login", "v6-identity-verification", "v7-pass-state-check", "v8-idempotency-keys",
                "v9-idempotency-attempts", "v10-transparency-log", "v11-witness-cosignatures", "v12-checkpoints-by-log",
            ])
        #expect(fileMode(path) == 0o600)
        #expect(fileMode(path + "-wal") == 0o600)
        #expect(fileMode(path + "-shm") == 0o600)
        try store.close()
    }

    /// The write-ahead log is checkpointed while the store is open, beside the writer (no
    /// commit runs SQLite's automatic checkpoint): past 1,000 pages of log, the pages reach
    /// the database file without a close; and the log starts again from its beginning under
    /// a steady load, so its file stays bounded.
    @Test func theLogIsCheckpointedWhileTheStoreIsOpen() async throws {
        let path = directory.file("wallet.sqlite")
        let store = try Store(options: StoreOptions(path: path))
        func size(_ file: String) -> Int {
            (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        }
        let before = size(path)
        try await store.write { try $0.execute(sql: "CREATE TABLE filler (data BLOB)") }
        for _ in 0..<6_000 {
            try await store.write { try $0.execute(sql: "INSERT INTO filler VALUES (randomblob(3000))") }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while size(path) < before + 1_000 * 4096, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(size(path) >= before + 1_000 * 4096, "the database file holds \(size(path)) bytes")
        // 12,000 pages written; the log restarted before 3,000 and a few in flight.
        #expect(size(path + "-wal") < 4_000 * 4_120, "the log holds \(size(path + "-wal")) bytes")
        try store.close()
    }

    /// A record whose state this tokenctl does not know (written by a newer one, or by hand
    /// past the check) is refused as corrupt by every read, never read as another state.
    @Test func aStoredStateThisVersionDoesNotKnowIsCorruptNotADefault() async throws {
        let path = directory.file("wallet.sqlite")
        let store = try Store(options: StoreOptions(path: path))
        try await store.write { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            try db.execute(
                sql: """
                    INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier, state)
                    VALUES ('pass.com.example', 'SN1', 'DAPL1', 'frozen')
                    """)
            try db.execute(sql: "PRAGMA ignore_check_constraints = OFF")
        }
        let reads: [(String, () async throws -> Void)] = [
            ("passes", { _ = try await store.passes(matching: PassQuery(serialNumber: "SN1")) }),
            ("forEachPass", { try await store.forEachPass(state: nil) { _ in } }),
            ("copySource", { _ = try await store.copySource(pageSize: 10).passes.nextPage() }),
        ]
        for (name, read) in reads {
            await #expect("\(name)") {
                try await read()
            } throws: { error in
                (error as? StorageError)?.code == .storageCorrupt && "\(error)".contains("unknown state frozen")
            }
        }
        try store.close()
    }

    /// The header's user_version counts the migrations applied, so a later open can tell
    /// the schema is current without reading it; a database migrated before the counter
    /// existed gets it on its next open.
    @Test func theSchemaVersionCountsTheMigrations() throws {
        let path = directory.file("wallet.sqlite")
        let migrations = Migrations.migrator.migrations.count
        func userVersion() throws -> Int {
            let store = try Store(options: StoreOptions(path: path))
            defer { try? store.close() }
            return try store.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } ?? -1
        }
        #expect(try userVersion() == migrations)

        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "PRAGMA user_version = 0") }
        try queue.close()
        #expect(try userVersion() == migrations)

        // A counter that says current is trusted: the migrations table is not read.
        let renamed = try DatabaseQueue(path: path)
        try renamed.write { try $0.execute(sql: "ALTER TABLE grdb_migrations RENAME TO grdb_migrations_moved") }
        try renamed.close()
        #expect(try userVersion() == migrations)
    }

    /// v7 rebuilds the wallet's table with the state check written as equalities: every row
    /// and its state survive, and the check and the device label's uniqueness still hold.
    @Test func theStateCheckMigrationKeepsEveryRecordAndItsConstraints() throws {
        let path = directory.file("wallet.sqlite")
        let old = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(old, upTo: "v6-identity-verification")
        let rows: [[String?]] = [
            ["t", "S1", "D1", "requiresActivation", nil, nil],
            ["t", "S1", "D2", "activated", "Watch", "1234"],
            ["t", "S2", "D3", "activating", "iPhone", nil],
            ["u", "S2", "D4", "suspended", nil, "0000"],
            ["t", "S3", "D5", "deactivated", "", nil],
        ]
        try old.write { db in
            for row in rows {
                try db.execute(
                    sql: """
                        INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier, state, device_label, card_suffix)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """, arguments: StatementArguments(row))
            }
        }
        try old.close()

        let store = try Store(options: StoreOptions(path: path))
        let stored = try store.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT pass_type_identifier, serial_number, device_account_identifier, state, device_label, card_suffix
                    FROM pass_record ORDER BY device_account_identifier
                    """
            ).map { row in (0..<6).map { row[$0] as String? } }
        }
        #expect(stored == rows)
        func insert(_ state: String, device: String?, account: String) throws {
            try store.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier, state, device_label)
                        VALUES ('t', 'S1', ?, ?, ?)
                        """, arguments: [account, state, device])
            }
        }
        #expect(throws: DatabaseError.self) { try insert("bogus", device: "Tablet", account: "D9") }
        #expect(throws: DatabaseError.self) { try insert("activated", device: "Watch", account: "D9") }
        try insert("activated", device: "Tablet", account: "D9")
        try store.close()
    }

    @Test(arguments: [(StoreOptions.Durability.normal, 1), (.full, 2)])
    func durabilitySetsSynchronous(durability: StoreOptions.Durability, pragma: Int) throws {
        let store = try Store(options: StoreOptions(path: directory.file("wallet.sqlite"), durability: durability))
        #expect(try store.read { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == pragma)
        try store.close()
    }

    @Test func closingCheckpointsAndRemovesTheWriteAheadLog() throws {
        let path = directory.file("wallet.sqlite")
        let store = try Store(options: StoreOptions(path: path))
        try store.write { db in
            try db.execute(
                sql:
                    "INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier) VALUES ('t', 's', 'd')"
            )
        }
        try store.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))

        let reopened = try Store(options: StoreOptions(path: path))
        #expect(try reopened.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM pass_record") } == 1)
        try reopened.close()
    }

    @Test func anExplicitPathInAMissingDirectoryIsAnError() throws {
        let path = directory.file("missing/wallet.sqlite")
        let error = try #require(throws: StorageError.self) { try Store(options: StoreOptions(path: path)) }
        #expect(error.code.rawValue == "storage.directoryMissing")
        #expect(error.message.contains(directory.file("missing")))
        #expect(!FileManager.default.fileExists(atPath: directory.file("missing")))
    }

    @Test func theDefaultLocationCreatesItsDirectoriesOwnerOnly() throws {
        let path = directory.file("data/tokenctl/wallet.sqlite")
        let store = try Store(options: StoreOptions(path: path, createsDirectory: true))
        try store.close()
        #expect(fileMode(directory.file("data")) == 0o700)
        #expect(fileMode(directory.file("data/tokenctl")) == 0o700)
        #expect(fileMode(path) == 0o600)
    }

    @Test func aWriterWaitsForTheBusyTimeoutThenFailsAsBusy() throws {
        let path = directory.file("wallet.sqlite")
        try Store(options: StoreOptions(path: path)).close()
        // Given another connection holding the write lock
        var unsafe = Configuration()
        unsafe.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: path, configuration: unsafe)
        try holder.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        defer { try? holder.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") } }

        // When a store with a 200 ms busy timeout opens (reading works) and tries to write
        let store = try Store(options: StoreOptions(path: path, busyTimeoutMilliseconds: 200))
        #expect(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM pass_record") } == 0)
        let started = ContinuousClock.now
        let error = try #require(throws: StorageError.self) {
            try store.write { try $0.execute(sql: "DELETE FROM pass_record") }
        }
        // Then it waited, and the failure is the temporary `storage.busy`
        #expect(ContinuousClock.now - started >= .milliseconds(150))
        #expect(error.code.rawValue == "storage.busy")
        #expect(error.isTemporary)
        try store.close()
    }

    @Test func aFileOfRandomBytesIsReportedAsCorrupt() throws {
        let path = directory.file("wallet.sqlite")
        var generator = SystemRandomNumberGenerator()
        let garbage = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try garbage.write(to: URL(fileURLWithPath: path))

        let error = try #require(throws: StorageError.self) { try Store(options: StoreOptions(path: path)) }
        #expect(error.code.rawValue == "storage.corrupt")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    @Test func throwingInsideWriteRollsBack() throws {
        struct Abort: Error {}
        let store = try Store(options: StoreOptions(path: directory.file("wallet.sqlite")))
        #expect(throws: Abort.self) {
            try store.write { db in
                try db.execute(
                    sql:
                        "INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier) VALUES ('t', 's', 'd')"
                )
                throw Abort()
            }
        }
        #expect(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM pass_record") } == 0)
        try store.close()
    }

    @Test(
        arguments: [
            ("same identity", "d1", "iPhone", "d1", "Watch"),
            ("same device label, other id", "d1", "iPhone", "d2", "iPhone"),
            ("both without label, other id", "d1", nil, "d2", nil),
        ] as [(String, String, String?, String, String?)])
    func theSchemaRejectsCollidingRecords(
        _ name: String, _ firstID: String, _ firstDevice: String?, _ secondID: String, _ secondDevice: String?
    ) throws {
        let store = try Store(options: StoreOptions(path: directory.file("wallet.sqlite")))
        let insert =
            "INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier, device_label) VALUES ('t', 's', ?, ?)"
        try store.write { try $0.execute(sql: insert, arguments: [firstID, firstDevice]) }
        let error = try #require(throws: DatabaseError.self, "\(name)") {
            try store.write { try $0.execute(sql: insert, arguments: [secondID, secondDevice]) }
        }
        #expect(error.resultCode == .SQLITE_CONSTRAINT)
        try store.close()
    }

    @Test func aWatchAndAnIPhonePassMayShareASerial() throws {
        let store = try Store(options: StoreOptions(path: directory.file("wallet.sqlite")))
        let insert =
            "INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier, device_label) VALUES ('t', 's', ?, ?)"
        try store.write { db in
            try db.execute(sql: insert, arguments: ["d1", "iPhone"])
            try db.execute(sql: insert, arguments: ["d2", "Watch"])
        }
        #expect(
            try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM pass_record WHERE serial_number = 's'") }
                == 2)
        try store.close()
    }

    @Test func theStateColumnOnlyAcceptsKnownStates() throws {
        let store = try Store(options: StoreOptions(path: directory.file("wallet.sqlite")))
        let error = try #require(throws: DatabaseError.self) {
            try store.write {
                try $0.execute(
                    sql:
                        "INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier, state) VALUES ('t', 's', 'd', 'bogus')"
                )
            }
        }
        #expect(error.resultCode == .SQLITE_CONSTRAINT)
        try store.close()
    }
}

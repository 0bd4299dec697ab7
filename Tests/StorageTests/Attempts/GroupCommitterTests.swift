import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing
import WalletModel

@testable import Storage

@Suite struct GroupCommitterTests {
    let directory = TemporaryDirectory()

    struct Refused: Error {}

    final class Results: Sendable {
        private let byJob = Mutex<[Int: Bool]>([:])
        func record(_ job: Int, _ succeeded: Bool) { byJob.withLock { $0[job] = succeeded } }
        var all: [Int: Bool] { byJob.withLock { $0 } }
    }

    /// Given many tasks sharing transactions, when some jobs fail after writing, then
    /// exactly their writes are gone, every other job's are committed, each caller gets its
    /// own result, and fewer transactions than jobs were written.
    @Test func aFailingJobRollsBackItsOwnWritesOnly() async throws {
        let store = try Store(options: StoreOptions(path: directory.file("wallet.sqlite")))
        let committer = GroupCommitter(store: store)
        let jobs = 400
        let results = Results()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for job in stride(from: worker, to: jobs, by: 8) {
                        let succeeded: Bool
                        do {
                            succeeded = try await committer.run { db, _ in
                                try db.execute(
                                    sql: """
                                        INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier)
                                        VALUES ('t', ?, 'd')
                                        """, arguments: ["S\(job)"])
                                if job % 7 == 3 { throw Refused() }
                                return true
                            }
                        } catch {
                            succeeded = false
                            #expect(error is Refused)
                        }
                        results.record(job, succeeded)
                    }
                }
            }
        }
        let stored = try await store.read { db in
            Set(try String.fetchAll(db, sql: "SELECT serial_number FROM pass_record"))
        }
        let expected = Set((0..<jobs).filter { $0 % 7 != 3 }.map { "S\($0)" })
        #expect(stored == expected)
        #expect(results.all == Dictionary(uniqueKeysWithValues: (0..<jobs).map { ($0, $0 % 7 != 3) }))
        let figures = committer.figures
        #expect(figures.jobs == jobs)
        #expect(figures.transactions < jobs)
        await committer.close()
        try store.close()
    }

    /// A job submitted without waiting is committed once a job submitted after it has
    /// returned; a failed one answers its own error when asked.
    @Test func aSubmittedJobIsCommittedBeforeALaterOneReturns() async throws {
        let store = try Store(options: StoreOptions(path: directory.file("wallet.sqlite")))
        let committer = GroupCommitter(store: store)
        let path = directory.file("wallet.sqlite")
        let (seen, refusedFailed) = try await { () async throws -> (Int, Bool) in
            let written = committer.submit { db, _ in
                try db.execute(
                    sql:
                        "INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier) VALUES ('t', 'S1', 'd')"
                )
            }
            let refused = committer.submit { _, _ in throw Refused() }
            try await committer.run { db, _ in
                try db.execute(
                    sql:
                        "INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier) VALUES ('t', 'S2', 'd')"
                )
            }
            // Committed: another connection sees it.
            let seen = try await DatabaseQueue(path: path).read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM pass_record WHERE serial_number = 'S1'") ?? 0
            }
            try await written.result()
            return (seen, (try? await refused.result()) == nil)
        }()
        #expect(seen == 1)
        #expect(refusedFailed)
        await committer.close()
        try store.close()
    }
}

import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing
import WalletModel

@testable import Storage

/// A resident service's store: readers beside the writer, so a read never queues behind a
/// commit; a command's store keeps its one connection.
@Suite struct StoreReadersTests {
    let directory = TemporaryDirectory()

    /// While one thread holds the write transaction open, another reads: with concurrent
    /// readers the read answers at once, from the last committed state. Both run on threads
    /// of their own and the read is timed on its thread, so a busy machine's task scheduling
    /// is not counted.
    @Test func aReadDoesNotWaitForTheWriterWithConcurrentReaders() async throws {
        var options = StoreOptions(path: directory.file("wallet.sqlite"))
        options.concurrentReaders = 2
        let store = try Store(options: options)
        defer { try? store.close() }
        let (count, waited) = try await Threads.run { () throws -> (Int?, Duration) in
            let writing = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let written = DispatchSemaphore(value: 0)
            Thread {
                _ = try? store.write { db in
                    try db.execute(
                        sql:
                            "INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier) VALUES ('t', 'SN1', 'd')"
                    )
                    writing.signal()
                    release.wait()
                }
                written.signal()
            }.start()
            writing.wait()
            // Without readers the read would wait for this: the writer lets go after 3 s.
            DispatchQueue.global().asyncAfter(deadline: .now() + 3) { release.signal() }
            let started = ContinuousClock.now
            let count = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pass_record") }
            let waited = ContinuousClock.now - started
            release.signal()
            written.wait()
            return (count, waited)
        }
        #expect(count == 0)
        #expect(waited < .milliseconds(1500))
        #expect(try await store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pass_record") } == 1)
    }

    /// The readers' pool keeps the configured durability on the writer.
    @Test func fullDurabilityHoldsWithConcurrentReaders() throws {
        var options = StoreOptions(path: directory.file("full.sqlite"), durability: .full)
        options.concurrentReaders = 2
        let store = try Store(options: options)
        defer { try? store.close() }
        #expect(try store.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
    }
}

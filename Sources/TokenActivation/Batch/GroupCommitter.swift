import Foundation
import GRDB
import Storage

/// Runs the database work of many concurrent activations in shared transactions: jobs
/// that arrive while a transaction is being written wait and go into the next one, each in
/// its own savepoint. Every job's effects are committed before its caller returns, so "the
/// started entry is committed before the request leaves" holds per line while the cost of a
/// commit is shared by many lines.
///
/// There is no writer thread: the caller that finds no transaction being written writes
/// one itself, with every job waiting at that moment, while later callers queue for the
/// next. A job costs no hop to another thread, only a wake-up when another caller wrote it.
/// Callers are activation workers' own threads: a write may wait for another process's
/// lock up to the busy timeout.
final class GroupCommitter: @unchecked Sendable {
    private let store: Store
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var waiting: [any PendingJob] = []
    private var writing = false
    private var transactions = 0
    private var jobs = 0

    init(store: Store) {
        self.store = store
    }

    /// Transactions written so far, and the jobs they carried (for figures).
    var figures: (transactions: Int, jobs: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (transactions, jobs)
    }

    /// Runs `body` in a savepoint of the next shared transaction and returns its value
    /// once that transaction is committed.
    func run<T>(_ body: @escaping (Database) throws -> T) throws -> T {
        let job = Job(body: body)
        condition.lock()
        waiting.append(job)
        while !job.isDone {
            guard !writing else {
                condition.wait()
                continue
            }
            writing = true
            let batch = waiting
            waiting = []
            condition.unlock()
            let failure = write(batch)
            condition.lock()
            for done in batch { done.complete(transactionError: failure) }
            transactions += 1
            jobs += batch.count
            writing = false
            condition.broadcast()
        }
        condition.unlock()
        return try job.result.get()
    }

    private func write(_ batch: [any PendingJob]) -> (any Error)? {
        do {
            try store.write { db in
                for job in batch { job.execute(db) }
            }
            return nil
        } catch {
            return error
        }
    }
}

/// A job whose result type is known only to itself: no casts on the way back.
private protocol PendingJob: AnyObject {
    func execute(_ db: Database)
    func complete(transactionError: (any Error)?)
}

/// One caller's work and its typed result. Made by the caller, executed and completed by
/// whichever caller writes the transaction (under the committer's lock or while it alone
/// writes), read by the caller after it saw `isDone` under the lock.
private final class Job<T>: PendingJob {
    private let body: (Database) throws -> T
    private var outcome: Result<T, any Error> = .failure(CancellationError())
    private(set) var result: Result<T, any Error> = .failure(CancellationError())
    private(set) var isDone = false

    init(body: @escaping (Database) throws -> T) {
        self.body = body
    }

    /// Runs the body in a savepoint; its failure rolls back its own work only. GRDB may
    /// run the transaction body again (busy retry): each run starts from a clean result.
    func execute(_ db: Database) {
        do {
            try db.inSavepoint {
                outcome = .success(try body(db))
                return .commit
            }
        } catch {
            outcome = .failure(error)
        }
    }

    func complete(transactionError: (any Error)?) {
        result = transactionError.map { .failure($0) } ?? outcome
        isDone = true
    }
}

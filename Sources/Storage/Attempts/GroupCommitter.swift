import Foundation
import GRDB
import WalletModel

/// Runs the database work of many concurrent activations in shared transactions: jobs
/// that arrive while a transaction is being written wait and go into the next one, each in
/// its own savepoint. Every job's effects are committed before its caller returns, so "the
/// started entry is committed before the request leaves" holds per line while the cost of a
/// commit is shared by many lines.
///
/// No thread of its own writes the transactions: a caller waiting for its job while none is
/// being written writes the queued jobs itself (``GroupingQueue``); a write may wait for
/// another process's lock up to the busy timeout.
final class GroupCommitter: @unchecked Sendable {
    private let store: Store
    /// The audit's end within the transaction being written; the writer's alone.
    private let tail = AuditTail()
    private var queue: GroupingQueue<any PendingJob>!

    init(store: Store) {
        self.store = store
        queue = GroupingQueue { [self] batch in write(batch) }
    }

    /// Transactions written so far, and the jobs they carried (for figures).
    var figures: (transactions: Int, jobs: Int) { queue.figures }

    /// Runs `body` in a savepoint of the next shared transaction and returns its value
    /// once that transaction is committed. Blocks the calling thread. `body` appends to the
    /// audit through the ``AuditTail`` it is given.
    func run<T>(_ body: @escaping (Database, AuditTail) throws -> T) throws -> T {
        try submit(body).result()
    }

    /// Queues `body` for the next shared transaction and returns at once. Jobs are written
    /// in the order they are submitted, so once a job submitted later by the same thread has
    /// returned from ``run(_:)``, this one is committed too.
    func submit<T>(_ body: @escaping (Database, AuditTail) throws -> T) -> Ticket<T> {
        let job = Job(body: body)
        return Ticket(job: job, place: queue.enqueue(job), queue: queue)
    }

    /// A submitted job's result, to be asked for once.
    struct Ticket<T>: @unchecked Sendable {
        fileprivate let job: Job<T>
        fileprivate let place: GroupingQueue<any PendingJob>.Ticket
        fileprivate let queue: GroupingQueue<any PendingJob>

        /// Waits until the job's transaction is committed (or failed), writing it when no
        /// other caller is.
        func result() throws -> T {
            queue.wait(place)
            return try job.result.get()
        }
    }

    /// Writes the jobs still queued and drops the writer.
    func close() {
        queue.close()
    }

    /// Writes `batch` in one transaction and completes its jobs.
    private func write(_ batch: [any PendingJob]) {
        var failure: (any Error)?
        do {
            try store.write { db in
                tail.forget()
                for job in batch { try job.execute(db, tail: tail) }
            }
        } catch {
            failure = error
        }
        for job in batch { job.complete(transactionError: failure) }
    }
}

/// A job whose result type is known only to itself: no casts on the way back.
private protocol PendingJob: AnyObject {
    func execute(_ db: Database, tail: AuditTail) throws
    func complete(transactionError: (any Error)?)
}

/// One caller's work and its typed result. Made by the caller, executed and completed by
/// the caller that leads its group, read by its caller once the queue says it is written.
fileprivate final class Job<T>: PendingJob {
    private let body: (Database, AuditTail) throws -> T
    private var outcome: Result<T, any Error> = .failure(CancellationError())
    private(set) var result: Result<T, any Error> = .failure(CancellationError())

    init(body: @escaping (Database, AuditTail) throws -> T) {
        self.body = body
    }

    /// Runs the body in a savepoint; its failure rolls back its own work only. GRDB may
    /// run the transaction body again (busy retry): each run starts from a clean result.
    /// The savepoint's statements are prepared once per connection and stepped through
    /// SQLite's C API: GRDB's `inSavepoint` prepares them on every call, and its statement
    /// execution costs more than the statement (Benchmarks/README.md, "Measured shapes").
    ///
    /// - Throws: when the savepoint itself cannot be set, rolled back or released: the
    ///   transaction is then rolled back whole.
    func execute(_ db: Database, tail: AuditTail) throws {
        _ = try DirectStatement(db.cachedStatement(sql: "SAVEPOINT activation_step"), db).run()
        do {
            outcome = .success(try body(db, tail))
        } catch {
            outcome = .failure(error)
            tail.forget()
            _ = try DirectStatement(db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT activation_step"), db).run()
        }
        _ = try DirectStatement(db.cachedStatement(sql: "RELEASE SAVEPOINT activation_step"), db).run()
    }

    func complete(transactionError: (any Error)?) {
        result = transactionError.map { .failure($0) } ?? outcome
    }
}

import GRDB
import WalletModel

/// Runs the database work of many concurrent activations in shared transactions: jobs
/// that arrive while a transaction is being written wait and go into the next one, each in
/// its own savepoint. Every job's effects are committed before its caller's task resumes,
/// so "the started entry is committed before the request leaves" holds per line while the
/// cost of a commit is shared by many lines.
///
/// The transactions are written on GRDB's writer, the driver's own executor (``WriteGroups``
/// says when to start it); a waiting caller's task is suspended, never a thread. A write may
/// wait there for another process's lock up to the busy timeout.
final class GroupCommitter: Sendable {
    private let store: Store
    /// The audit's end within the transaction being written; the writer's alone.
    private let tail = AuditTail()
    private let groups = WriteGroups<any PendingJob>()

    init(store: Store) {
        self.store = store
    }

    /// Transactions written so far, and the jobs they carried (for figures).
    var figures: (transactions: Int, jobs: Int) { groups.figures }

    /// Runs `body` in a savepoint of the next shared transaction and returns its value
    /// once that transaction is committed. `body` appends to the audit through the
    /// ``AuditTail`` it is given.
    func run<T: Sendable>(_ body: @escaping @Sendable (Database, AuditTail) throws -> T) async throws -> T {
        try await submit(body).result()
    }

    /// Queues `body` for the next shared transaction and returns at once. Jobs are written
    /// in the order they are submitted, so once a job submitted later has returned from
    /// ``run(_:)``, this one is committed too.
    /// - Parameter held: start no transaction for it: it goes with the next job that does,
    ///   or alone once its result is awaited (an activation's deferred "finished" write).
    func submit<T: Sendable>(
        held: Bool = false, _ body: @escaping @Sendable (Database, AuditTail) throws -> T
    ) -> Ticket<T> {
        let job = Job(body: body)
        if held {
            groups.hold(job)
        } else if groups.enqueue(job) {
            startWriter()
        }
        return Ticket(job: job, committer: self)
    }

    /// A submitted job's result, to be awaited once.
    struct Ticket<T: Sendable>: Sendable {
        fileprivate let job: Job<T>
        fileprivate let committer: GroupCommitter

        /// Returns once the job's transaction is committed (or failed).
        func result() async throws -> T {
            if committer.groups.release() { committer.startWriter() }
            return try await job.result.value.get()
        }
    }

    /// Returns once the jobs still queued are written.
    func close() async {
        if groups.release() { startWriter() }
        await groups.drained()
    }

    /// Writes the queued groups on GRDB's writer until none is left.
    private func startWriter() {
        store.startWriter { [self] db in
            while let group = groups.next() { write(group, db) }
        }
    }

    /// Writes `group` in one transaction on the writer's connection and completes its jobs.
    private func write(_ group: [any PendingJob], _ db: Database) {
        var failure: (any Error)?
        do {
            try store.transaction(on: db) { db in
                tail.forget()
                for job in group { try job.execute(db, tail: tail) }
            }
        } catch {
            failure = error
        }
        for job in group { job.complete(transactionError: failure) }
    }
}

/// A job whose result type is known only to itself: no casts on the way back.
private protocol PendingJob: AnyObject, Sendable {
    func execute(_ db: Database, tail: AuditTail) throws
    func complete(transactionError: (any Error)?)
}

/// One caller's work and its typed result. Made by the caller, executed and completed on the
/// writer, awaited by its caller.
///
/// Unchecked Sendable: `outcome` is written and read on the writer only.
fileprivate final class Job<T: Sendable>: PendingJob, @unchecked Sendable {
    private let body: @Sendable (Database, AuditTail) throws -> T
    private var outcome: Result<T, any Error> = .failure(CancellationError())
    let result = Promise<Result<T, any Error>>()

    init(body: @escaping @Sendable (Database, AuditTail) throws -> T) {
        self.body = body
    }

    /// Runs the body in a savepoint; its failure rolls back its own work only. A busy retry
    /// runs the transaction body again: each run starts from a clean result.
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
        result.give(transactionError.map { .failure($0) } ?? outcome)
    }
}

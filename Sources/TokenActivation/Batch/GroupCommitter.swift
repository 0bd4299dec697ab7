import Dispatch
import GRDB
import Storage

/// Runs the database work of many concurrent activations in shared transactions: jobs
/// that arrive while a transaction is being written wait and go into the next one, each in
/// its own savepoint. Every job's effects are committed before its caller resumes, so "the
/// started entry is committed before the request leaves" holds per line while the cost of a
/// commit is shared by many lines.
///
/// The writes run on one dispatch queue of their own, never on the cooperative thread
/// pool: a write may wait for another process's lock up to the busy timeout.
///
/// All of its state lives on that queue: callers only enqueue blocks, so the ordering is
/// libdispatch's (which the thread sanitizer understands) and no lock is needed.
final class GroupCommitter: @unchecked Sendable {
    private let store: Store
    private let writer = DispatchQueue(label: "tokenctl.database-writer")
    // Touched on `writer` only.
    private var waiting: [any PendingJob] = []
    private var drainScheduled = false
    private var transactions = 0
    private var jobs = 0

    init(store: Store) {
        self.store = store
    }

    /// Transactions written so far, and the jobs they carried (for figures).
    var figures: (transactions: Int, jobs: Int) {
        writer.sync { (transactions, jobs) }
    }

    /// Runs `body` in a savepoint of the next shared transaction and returns its value
    /// once that transaction is committed.
    func run<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = Job(body: body, continuation: continuation)
            writer.async {
                self.waiting.append(job)
                self.scheduleDrain()
            }
        }
    }

    /// Jobs enqueued while a transaction is written are appended by blocks queued behind
    /// it, so the next drain takes them all at once.
    private func scheduleDrain() {
        guard !drainScheduled else { return }
        drainScheduled = true
        writer.async { self.drain() }
    }

    private func drain() {
        drainScheduled = false
        let batch = waiting
        waiting = []
        guard !batch.isEmpty else { return }
        var failure: (any Error)?
        do {
            try store.write { db in
                for job in batch { job.execute(db) }
            }
        } catch {
            failure = error
        }
        transactions += 1
        jobs += batch.count
        for job in batch { job.complete(transactionError: failure) }
    }
}

/// A job whose result type is known only to itself: no casts on the way back.
private protocol PendingJob: Sendable {
    func execute(_ db: Database)
    func complete(transactionError: (any Error)?)
}

/// One caller's work and where its typed result goes. Touched by one thread at a time:
/// made by the caller, then executed and completed on the writer queue.
private final class Job<T: Sendable>: PendingJob, @unchecked Sendable {
    private let body: @Sendable (Database) throws -> T
    private let continuation: CheckedContinuation<T, any Error>
    private var result: Result<T, any Error> = .failure(CancellationError())

    init(body: @escaping @Sendable (Database) throws -> T, continuation: CheckedContinuation<T, any Error>) {
        self.body = body
        self.continuation = continuation
    }

    /// Runs the body in a savepoint; its failure rolls back its own work only. GRDB may
    /// run the transaction body again (busy retry): each run starts from a clean result.
    func execute(_ db: Database) {
        do {
            try db.inSavepoint {
                result = .success(try body(db))
                return .commit
            }
        } catch {
            result = .failure(error)
        }
    }

    func complete(transactionError: (any Error)?) {
        continuation.resume(with: transactionError.map { .failure($0) } ?? result)
    }
}

import GRDB
import Storage

/// Runs the database work of many concurrent activations in shared transactions: jobs
/// that arrive while a transaction is being written wait and go into the next one, each in
/// its own savepoint. Every job's effects are committed before its caller resumes, so "the
/// started entry is committed before the request leaves" holds per line while the cost of a
/// commit is shared by many lines.
actor GroupCommitter {
    private struct Job {
        let run: (Database) throws -> any Sendable
        let continuation: CheckedContinuation<any Sendable, any Error>
    }

    private let store: Store
    private var waiting: [Job] = []
    private var writing = false
    /// Transactions written so far, and jobs they carried (for figures).
    private(set) var transactions = 0
    private(set) var jobs = 0

    init(store: Store) {
        self.store = store
    }

    func run<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let value = try await withCheckedThrowingContinuation { continuation in
            waiting.append(Job(run: { try body($0) }, continuation: continuation))
            if !writing {
                writing = true
                Task { self.drain() }
            }
        }
        return value as! T
    }

    private func drain() {
        while !waiting.isEmpty {
            let batch = waiting
            waiting = []
            var results: [Result<any Sendable, any Error>] = []
            do {
                try store.write { db in
                    results = []
                    for job in batch {
                        var result: Result<any Sendable, any Error> = .failure(CancellationError())
                        do {
                            try db.inSavepoint {
                                result = .success(try job.run(db))
                                return .commit
                            }
                        } catch {
                            result = .failure(error)
                        }
                        results.append(result)
                    }
                }
            } catch {
                results = batch.map { _ in .failure(error) }
            }
            transactions += 1
            jobs += batch.count
            for (job, result) in zip(batch, results) {
                job.continuation.resume(with: result)
            }
        }
        writing = false
    }
}

import Foundation
import WalletModel

/// Writes attempt changes to PostgreSQL, grouping those of concurrent workers: while one call
/// of `tokenctl_apply` is on its way, the changes that arrive wait, and go together in the
/// next call (one round trip, one transaction, one hold of the chain lock for all of them).
/// Without sharing (one activation), each change is one call on the caller's thread.
///
/// A broken connection is tried again on a new one until `retryMilliseconds` pass: a finish
/// that did commit before its answer was lost is recognised by the server ("done").
final class PostgresGroupWriter: @unchecked Sendable {
    private let store: PostgresStore
    private let retryMilliseconds: Int
    private var queue: GroupingQueue<Job>!

    private final class Job: @unchecked Sendable {
        let change: AttemptChange
        let done = DispatchSemaphore(value: 0)
        var result: Result<AttemptChangeStatus, any Error> = .success(.conflict)

        init(change: AttemptChange) {
            self.change = change
        }
    }

    init(store: PostgresStore, sharing: Bool, retryMilliseconds: Int = 30_000) {
        self.store = store
        self.retryMilliseconds = retryMilliseconds
        queue = GroupingQueue(threadName: "tokenctl-pg-writer", sharing: sharing) { [self] group in write(group) }
    }

    /// Writes one change and waits for its status.
    func apply(_ change: AttemptChange) throws -> AttemptChangeStatus {
        try submit(change)()
    }

    /// Queues one change; the returned function waits for its status.
    func submit(_ change: AttemptChange) -> () throws -> AttemptChangeStatus {
        let job = Job(change: change)
        queue.enqueue(job)
        return {
            job.done.wait()
            return try job.result.get()
        }
    }

    var figures: (transactions: Int, jobs: Int) { queue.figures }

    /// Stops the writer thread once what is queued is written.
    func close() {
        queue.close()
    }

    private func write(_ group: [Job]) {
        let deadline = ContinuousClock.now + .milliseconds(retryMilliseconds)
        var result: Result<[AttemptChangeStatus], any Error>
        while true {
            result = Result { try store.apply(group.map(\.change), genesis: AuditRow.genesisHash) }
            if case .failure(let error as StorageError) = result, error.isConnectionFailure, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.2)
                continue
            }
            break
        }
        for (index, job) in group.enumerated() {
            job.result = result.map { $0.indices.contains(index) ? $0[index] : .conflict }
            job.done.signal()
        }
    }
}

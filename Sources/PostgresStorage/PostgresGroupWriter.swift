import Foundation
import Synchronization
import WalletModel

/// Sends the attempts' reads and writes to PostgreSQL, grouping those of concurrent workers:
/// while one call of `tokenctl_step` is on its way, the jobs that arrive wait, and go
/// together in the next call (one round trip, one transaction and one hold of the chain lock
/// for the writes, then the reads on what they committed), sent by one of their callers
/// (``GroupingQueue``): a lone activation's jobs are each one call on its own thread.
///
/// A broken connection is tried again on a new one until `retryMilliseconds` have passed
/// since the oldest job of the group was queued: a write
/// that did commit before its answer was lost is recognised by the server ("done"), and
/// reads are read again.
final class PostgresGroupWriter: @unchecked Sendable {
    private let store: PostgresStore
    private let retryMilliseconds: Int
    private var queue: GroupingQueue<Job>!
    /// Calls that carried writes, and the writes (the reads are not counted).
    private let written = Mutex<(transactions: Int, jobs: Int)>((0, 0))

    private final class Job: @unchecked Sendable {
        enum Work {
            case change(AttemptChange)
            case read(PassQuery)
        }

        enum Answer {
            case status(AttemptChangeStatus)
            case resolution(AttemptResolution)
        }

        let work: Work
        /// When it was queued: its retries end `retryMilliseconds` after this.
        let queued = ContinuousClock.now
        var answer: Result<Answer, any Error> = .success(.status(.conflict))

        init(_ work: Work) {
            self.work = work
        }
    }

    init(store: PostgresStore, retryMilliseconds: Int = 30_000) {
        self.store = store
        self.retryMilliseconds = retryMilliseconds
        queue = GroupingQueue { [self] group in send(group) }
    }

    /// Queues `job`; the returned function waits for its answer, sending its group when no
    /// other caller is.
    private func enqueue(_ job: Job) -> () throws -> Job.Answer {
        let place = queue.enqueue(job)
        return { [queue] in
            queue!.wait(place)
            return try job.answer.get()
        }
    }

    /// Reads the records of `query`, their leases and a new attempt id.
    func read(_ query: PassQuery) throws -> AttemptResolution {
        guard case .resolution(let resolution) = try enqueue(Job(.read(query)))() else {
            preconditionFailure("a read answered a status")
        }
        return resolution
    }

    /// Writes one change and waits for its status.
    func apply(_ change: AttemptChange) throws -> AttemptChangeStatus {
        try submit(change)()
    }

    /// Queues one change; the returned function waits for its status.
    func submit(_ change: AttemptChange) -> () throws -> AttemptChangeStatus {
        let answer = enqueue(Job(.change(change)))
        return {
            guard case .status(let status) = try answer() else { preconditionFailure("a change answered a read") }
            return status
        }
    }

    /// Transactions written so far and the changes they carried, as the batch summary counts them.
    var figures: (transactions: Int, jobs: Int) { written.withLock { $0 } }

    /// Sends what is still queued and drops the writer.
    func close() {
        queue.close()
    }

    private func send(_ group: [Job]) {
        var changes: [AttemptChange] = []
        var reads: [PassQuery] = []
        for job in group {
            switch job.work {
            case .change(let change): changes.append(change)
            case .read(let query): reads.append(query)
            }
        }
        if !changes.isEmpty {
            written.withLock { $0 = ($0.transactions + 1, $0.jobs + changes.count) }
        }
        // The window counts from the oldest job's arrival, not from this call: a job that
        // waited while an earlier group was retried has used that time already (it is
        // answered within one window, not two).
        let deadline = (group.map(\.queued).min() ?? .now) + .milliseconds(retryMilliseconds)
        var result: Result<StepAnswer, any Error>
        while true {
            result = Result { try store.step(changes, reads: reads, genesis: AuditRow.genesisHash) }
            if case .failure(let error as StorageError) = result, error.isConnectionFailure,
                ContinuousClock.now < deadline
            {
                Thread.sleep(forTimeInterval: 0.2)
                continue
            }
            break
        }
        var nextStatus = 0
        var nextRead = 0
        for job in group {
            job.answer = result.map { answer in
                switch job.work {
                case .change:
                    defer { nextStatus += 1 }
                    return .status(answer.statuses[nextStatus])
                case .read:
                    defer { nextRead += 1 }
                    return .resolution(answer.resolutions[nextRead])
                }
            }
        }
    }
}

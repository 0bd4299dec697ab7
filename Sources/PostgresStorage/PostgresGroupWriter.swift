import Synchronization
import WalletModel

/// Sends the attempts' reads and writes to PostgreSQL, grouping those of concurrent
/// activations: while one call of `tokenctl_step` is on its way, the jobs that arrive wait,
/// and go together in the next call (one round trip, one transaction and one hold of the
/// chain lock for the writes, then the reads on what they committed). The calls are made by
/// one writer task at a time (``WriteGroups``), started by the job that finds none running; a
/// waiting activation's task is suspended, never a thread.
///
/// A broken connection is tried again on a new one until `retryMilliseconds` have passed
/// since the oldest job of the group was queued: a write that did commit before its answer
/// was lost is recognised by the server ("done"), and reads are read again.
final class PostgresGroupWriter: Sendable {
    private let store: PostgresStore
    private let retryMilliseconds: Int
    private let groups = WriteGroups<Job>()
    /// Calls that carried writes, and the writes (the reads are not counted).
    private let written = Mutex<(transactions: Int, jobs: Int)>((0, 0))

    private final class Job: Sendable {
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
        let answer = Promise<Result<Answer, any Error>>()

        init(_ work: Work) {
            self.work = work
        }
    }

    init(store: PostgresStore, retryMilliseconds: Int = 30_000) {
        self.store = store
        self.retryMilliseconds = retryMilliseconds
    }

    /// Queues `job`, starting the writer when none runs (unless `held`: it then goes with
    /// the next job that starts one, or alone once it is awaited).
    private func enqueue(_ job: Job, held: Bool = false) -> Job {
        if held {
            groups.hold(job)
        } else if groups.enqueue(job) {
            startWriter()
        }
        return job
    }

    /// Sends the queued groups, one call each, until none is left.
    private func startWriter() {
        Task { [self] in
            while let group = groups.next() { await send(group) }
        }
    }

    /// Reads the records of `query`, their leases and a new attempt id.
    func read(_ query: PassQuery) async throws -> AttemptResolution {
        guard case .resolution(let resolution) = try await enqueue(Job(.read(query))).answer.value.get() else {
            preconditionFailure("a read answered a status")
        }
        return resolution
    }

    /// Writes one change and waits for its status.
    func apply(_ change: AttemptChange) async throws -> AttemptChangeStatus {
        try await submit(change)()
    }

    /// Queues one change; the returned function waits for its status. A change held is sent
    /// with the next job that is not, or alone once it is awaited.
    func submit(
        _ change: AttemptChange, held: Bool = false
    ) -> @Sendable () async throws -> AttemptChangeStatus {
        let job = enqueue(Job(.change(change)), held: held)
        return { [self] in
            if groups.release() { startWriter() }
            guard case .status(let status) = try await job.answer.value.get() else {
                preconditionFailure("a change answered a read")
            }
            return status
        }
    }

    /// Transactions written so far and the changes they carried, as the batch summary counts them.
    var figures: (transactions: Int, jobs: Int) { written.withLock { $0 } }

    /// Returns once what is still queued is sent.
    func close() async {
        if groups.release() { startWriter() }
        await groups.drained()
    }

    private func send(_ group: [Job]) async {
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
            do {
                result = .success(try await store.step(changes, reads: reads, genesis: AuditRow.genesisHash))
            } catch {
                result = .failure(error)
            }
            if case .failure(let error as StorageError) = result, error.isConnectionFailure,
                ContinuousClock.now < deadline
            {
                try? await Task.sleep(for: .milliseconds(200))
                continue
            }
            break
        }
        var nextStatus = 0
        var nextRead = 0
        for job in group {
            job.answer.give(
                result.map { answer in
                    switch job.work {
                    case .change:
                        defer { nextStatus += 1 }
                        return .status(answer.statuses[nextStatus])
                    case .read:
                        defer { nextRead += 1 }
                        return .resolution(answer.resolutions[nextRead])
                    }
                })
        }
    }
}

import Synchronization
import WalletModel

/// Sends the attempts' reads and writes to PostgreSQL, grouping those of concurrent
/// activations: while one call of `tokenctl_step` is on its way, the jobs that arrive wait,
/// and go together in the next call (one round trip, one transaction and one hold of the
/// chain lock for the writes, then the reads on what they committed). The calls are made by
/// one writer task at a time (``WriteGroups``), started by the job that finds none running; a
/// waiting activation's task is suspended, never a thread.
///
/// A broken connection is tried again on a new one (on whichever host accepts writes by then)
/// until the group's deadline: a read's is its request's ``StoreDeadline``, a write's at least
/// `retryMilliseconds` after it was queued (an attempt's outcome learnt from TMP is kept,
/// not lost to a failover). A write that did commit before its answer was lost is recognised
/// by the server ("done"), and reads are read again.
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
        /// When its retries end.
        let deadline: ContinuousClock.Instant
        let answer = Promise<Result<Answer, any Error>>()

        init(_ work: Work, retryMilliseconds: Int) {
            self.work = work
            let window = ContinuousClock.now + .milliseconds(retryMilliseconds)
            switch work {
            case .read: deadline = StoreDeadline.current ?? window
            case .change: deadline = max(StoreDeadline.current ?? window, window)
            }
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
        guard
            case .resolution(let resolution) = try await enqueue(
                Job(.read(query), retryMilliseconds: retryMilliseconds)
            ).answer.value.get()
        else {
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
        let job = enqueue(Job(.change(change), retryMilliseconds: retryMilliseconds), held: held)
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
        let changed = group.count { if case .change = $0.work { true } else { false } }
        if changed > 0 { written.withLock { $0 = ($0.transactions + 1, $0.jobs + changed) } }
        // The windows count from the jobs' arrival, not from this call: a job that waited
        // while an earlier group was retried has used that time already (it is answered
        // within one window, not two). Each try lasts until the nearest deadline; the jobs
        // whose window has ended are then answered with the failure, and the rest tried again.
        var pending = group
        while true {
            var changes: [AttemptChange] = []
            var reads: [PassQuery] = []
            for job in pending {
                switch job.work {
                case .change(let change): changes.append(change)
                case .read(let query): reads.append(query)
                }
            }
            let nearest = pending.map(\.deadline).min() ?? .now
            let result: Result<StepAnswer, any Error>
            do {
                result = .success(
                    try await StoreDeadline.within(.milliseconds(retryMilliseconds), until: nearest) {
                        try await store.step(changes, reads: reads, genesis: AuditRow.genesisHash)
                    })
            } catch {
                result = .failure(error)
            }
            guard case .failure(let error as StorageError) = result, error.isConnectionFailure else {
                answer(pending, result)
                return
            }
            let now = ContinuousClock.now
            let ended = pending.filter { $0.deadline <= now + .milliseconds(200) }
            answer(ended, .failure(error.windowEnded()))
            pending.removeAll { job in ended.contains { $0 === job } }
            if pending.isEmpty { return }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Gives each job its part of the step's answer, or its failure.
    private func answer(_ jobs: [Job], _ result: Result<StepAnswer, any Error>) {
        var nextStatus = 0
        var nextRead = 0
        for job in jobs {
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

import Foundation
import Glibc

/// A task executor with one thread, for a test that runs code as a cooperative pool of one
/// thread would: every job of the tasks under its preference runs on it, one at a time. It
/// counts the jobs during which the thread gave up its core of its own accord (a voluntary
/// context switch: a semaphore, a condition, a contended lock, a blocking read or fsync), and
/// of those the ones that ran longer than `blockingThreshold`. A preemption is involuntary and
/// not counted.
public final class OneThreadExecutor: TaskExecutor, @unchecked Sendable {
    /// What the executor saw.
    public struct Report: Sendable {
        public var jobs = 0
        /// Jobs during which the thread gave up its core of its own accord, however briefly.
        public var switched = 0
        public var blocked = 0
        /// The longest blocking job's wall time, in milliseconds.
        public var longestBlockMilliseconds = 0.0
    }

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: [UnownedJob] = []
    private var stopped = false
    private var running = false
    private var seen = Report()
    private let blockingThreshold: Duration

    public init(blockingThreshold: Duration = .milliseconds(5)) {
        self.blockingThreshold = blockingThreshold
        let thread = Thread { [self] in run() }
        thread.name = "one-executor"
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        queue.append(job)
        condition.broadcast()
        condition.unlock()
    }

    /// What the executor has seen, once every job enqueued so far has run.
    public var report: Report {
        condition.lock()
        defer { condition.unlock() }
        while running || !queue.isEmpty { condition.wait() }
        return seen
    }

    /// Ends the thread once the queue is empty.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopped { condition.wait() }
            if queue.isEmpty {
                condition.unlock()
                return
            }
            let job = queue.removeFirst()
            running = true
            condition.unlock()
            let switches = Self.voluntarySwitches()
            let start = ContinuousClock.now
            job.runSynchronously(on: asUnownedTaskExecutor())
            let took = ContinuousClock.now - start
            let switched = Self.voluntarySwitches() > switches
            let blocked = switched && took > blockingThreshold
            condition.lock()
            seen.jobs += 1
            if switched { seen.switched += 1 }
            running = false
            condition.broadcast()
            if blocked {
                seen.blocked += 1
                let milliseconds = Double(took.components.attoseconds) / 1e15 + Double(took.components.seconds) * 1e3
                seen.longestBlockMilliseconds = max(seen.longestBlockMilliseconds, milliseconds)
            }
            condition.unlock()
        }
    }

    /// This thread's voluntary context switches so far.
    private static func voluntarySwitches() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD, which Glibc does not import
        return usage.ru_nvcsw
    }
}

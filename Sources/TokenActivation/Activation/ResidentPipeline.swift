import Dispatch
import Foundation
import Synchronization
import WalletModel

/// The activation pipeline kept warm for a resident service: the database open, the
/// preflight answered, and a fixed set of workers, each a thread with its own kept-alive
/// TMP connection. Every activation runs ``Session``'s one pipeline, as the CLI's do, on
/// the first free worker; concurrent activations share the ledger's group commit.
public final class ResidentPipeline: Sendable {
    private struct Job: Sendable {
        let deeplink: Deeplink
        let text: String
        let device: String?
        let dryRun: Bool
        /// A user gate's refusal, asked when the activation arrived.
        let refusal: ActivationError?
        let continuation: CheckedContinuation<ActivationResult, Never>
    }

    /// The activations waiting for a worker, oldest first, and the idle workers, the most
    /// recently busy last: it is woken first, so a light load keeps to few warm
    /// connections instead of spreading over every worker's.
    private struct Queue {
        var pending: [Job] = []
        var head = 0
        var idle: [Int] = []
        var stopping = false

        mutating func take() -> Job? {
            guard head < pending.count else { return nil }
            let job = pending[head]
            head += 1
            if head == pending.count {
                pending.removeAll(keepingCapacity: true)
                head = 0
            }
            return job
        }
    }

    private let activator: Activator
    private let store: any TokenStore
    private let session: Session
    private let queue = Mutex(Queue())
    /// One per worker: signalled when it is handed a job, or told to stop.
    private let wakeups: [DispatchSemaphore]
    private let finished = DispatchGroup()
    /// The number of workers: activations that run at once.
    public let workers: Int

    /// Opens the database and starts `workers` workers.
    /// - Throws: ``StorageError`` when the database cannot be opened.
    public init(activator: Activator, workers: Int) async throws {
        self.activator = activator
        self.workers = max(1, workers)
        wakeups = (0..<self.workers).map { _ in DispatchSemaphore(value: 0) }
        store = try activator.store.open(logger: activator.logger)
        do {
            session = try await Session(activator: activator, store: store, clients: self.workers, checkingGates: false)
        } catch {
            try? store.close()
            throw error
        }
        // Worker 0 ends up on top of the idle stack: the first activations use it.
        queue.withLock { $0.idle = Array((0..<self.workers).reversed()) }
        for worker in 0..<self.workers {
            finished.enter()
            let thread = Thread { [self] in
                work(worker)
                finished.leave()
            }
            thread.name = "tokenctl.activation"
            thread.start()
        }
    }

    /// Why no activation can be sent (TMP's credentials unreadable), as read when the
    /// pipeline was opened; nil when activations can be sent. The user gates are asked per
    /// activation instead.
    public var unusable: ActivationError? { session.unusable }

    /// The open database, for reads beside the activations (health, passes, audit).
    public var database: any TokenStore { store }

    /// Activates the token behind one deeplink on the next free worker. Never throws:
    /// every failure is a result, as ``Activator/activate(deeplink:device:dryRun:)``'s.
    public func activate(deeplink text: String, device: String? = nil, dryRun: Bool = false) async -> ActivationResult {
        let deeplink: Deeplink
        do {
            deeplink = try activator.parser.parse(text)
        } catch {
            return .refused(error)
        }
        // The gates change while the service runs (a login ages, a user activation
        // finishes): they are asked for every activation, as each CLI process asks them.
        let refusal = activator.hasGates ? await activator.gates(store: store) : nil
        return await withCheckedContinuation { continuation in
            let job = Job(deeplink: deeplink, text: text, device: device, dryRun: dryRun, refusal: refusal, continuation: continuation)
            enum Handed { case worker(Int), queued, refused }
            let handed = queue.withLock { queue -> Handed in
                guard !queue.stopping else { return .refused }
                queue.pending.append(job)
                return queue.idle.popLast().map(Handed.worker) ?? .queued
            }
            switch handed {
            case .worker(let worker): wakeups[worker].signal()
            case .queued: break
            case .refused:
                continuation.resume(returning: ActivationResult(outcome: .error, error: ActivationError(code: .serviceOverloaded, message: "the service is stopping; nothing was sent")))
            }
        }
    }

    /// Lets the workers finish what is queued, stops them, and closes the database.
    public func close() {
        let idle = queue.withLock { queue -> [Int] in
            queue.stopping = true
            defer { queue.idle = [] }
            return queue.idle
        }
        for worker in idle { wakeups[worker].signal() }
        finished.wait()
        session.close()
        try? store.close()
    }

    /// Runs jobs until the queue is empty, then waits on the idle stack; returns once
    /// stopping with nothing left to do.
    private func work(_ worker: Int) {
        while true {
            wakeups[worker].wait()
            while true {
                let job = queue.withLock { queue -> Job? in
                    if let job = queue.take() { return job }
                    if !queue.stopping { queue.idle.append(worker) }
                    return nil
                }
                guard let job else { break }
                let result = session.run(job.deeplink, text: job.text, device: job.device, client: worker, dryRun: job.dryRun, refusal: job.refusal)
                job.continuation.resume(returning: result)
            }
            if queue.withLock({ $0.stopping }) { return }
        }
    }
}

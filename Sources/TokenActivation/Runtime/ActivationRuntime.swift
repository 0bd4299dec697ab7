import Dispatch
import ErrorCodes
import Foundation
import Synchronization
import WalletModel

/// The one way an activation runs: a single CLI activation (one worker), a CLI batch, a
/// service request and a service batch's line. The runtime holds the database open, the
/// preflight answered and a fixed set of workers, each a thread with its own kept-alive
/// TMP connection (the transport's blocking handle); jobs wait in one FIFO, admitted up to
/// ``Options/capacity``. Every activation runs ``Session``'s one pipeline on the first free
/// worker; concurrent activations share the ledger's group commit.
public final class ActivationRuntime: Sendable {
    public struct Options: Sendable {
        /// Activations that run at once, one connection each.
        public var workers: Int
        /// Jobs admitted at once, running and waiting; a submission past it is refused
        /// (`service.max-in-flight` + `service.queue-limit`). A batch's lines are not
        /// refused: its read-ahead window bounds them.
        public var capacity: Int = .max
        /// Ask the user gates before each activation (a resident service: a login ages, a
        /// user activation finishes); otherwise once, when the runtime starts.
        public var gatesPerActivation = false
        /// Keep a "finished" write the database refused after TMP answered, to write once
        /// it accepts writes again, and answer TMP's outcome with a warning (a service).
        /// Otherwise the refusal is the result.
        public var keepsUnwritten = false
        /// Let a worker queue an activation's "finished" write and answer it once its next
        /// activation's first write is committed with it (one commit instead of two); a
        /// worker with nothing queued commits it alone at once. Off for a single activation.
        public var defersFinish = true

        public init(workers: Int) {
            self.workers = max(1, workers)
        }
    }

    let activator: Activator
    let options: Options
    let store: any TokenStore
    let session: Session
    private let observer: (any ActivationObserver)?
    let queue = Mutex(JobQueue())
    /// "Finished" writes the database refused after TMP answered, oldest first: written by
    /// ``writeUnwritten()`` as soon as the database accepts writes again.
    let unwritten = Mutex<[AttemptWrite]>([])
    /// One per worker: signalled when it is handed a job, or told to stop.
    let wakeups: [DispatchSemaphore]
    private let finished = DispatchGroup()

    /// Opens the database, answers the preflight and starts the workers.
    /// - Throws: ``StorageError`` when the database cannot be opened.
    public init(activator: Activator, options: Options, observer: (any ActivationObserver)? = nil) async throws {
        self.activator = activator
        self.options = options
        self.observer = observer
        wakeups = (0..<options.workers).map { _ in DispatchSemaphore(value: 0) }
        store = try activator.store.open(logger: activator.logger)
        do {
            session = try await Session(
                activator: activator, store: store, clients: options.workers, checkingGates: !options.gatesPerActivation
            )
        } catch {
            try? store.close()
            throw error
        }
        // Worker 0 ends up on top of the idle stack: the first activations use it.
        queue.withLock { $0.idle = Array((0..<options.workers).reversed()) }
        for worker in 0..<options.workers {
            finished.enter()
            Thread.start(named: "tokenctl.worker") { [self] in
                work(worker)
                finished.leave()
            }
        }
    }

    /// The number of workers: activations that run at once.
    public var workers: Int { options.workers }

    /// Why no activation can be sent (TMP's credentials unreadable, or a gate asked once),
    /// as read when the runtime started; nil when activations can be sent.
    public var unusable: ActivationError? { session.unusable }

    /// The open database, for reads beside the activations (health, passes, audit).
    public var database: any TokenStore { store }

    /// Activations running on a worker and waiting for one.
    public var load: (running: Int, waiting: Int) {
        queue.withLock { ($0.busy, $0.waiting) }
    }

    /// Whether a submission now would be refused.
    public var isFull: Bool {
        queue.withLock { $0.busy + $0.waiting >= options.capacity }
    }

    /// Database transactions written, and the activation steps they carried.
    public var figures: (transactions: Int, jobs: Int) { session.ledger.figures }

    /// Activates the token behind one deeplink on the next free worker. Every failure is
    /// a result, as ``Activator/activate(deeplink:device:dryRun:)``'s.
    /// - Parameter requestID: the id to audit the attempt under (an Idempotency-Key's,
    ///   stored with the key first); a new one when nil.
    /// - Returns: nil, with nothing run, when the runtime is full or stopping.
    public func activate(
        deeplink text: String, device: String? = nil, dryRun: Bool = false, requestID: String? = nil
    ) async -> ActivationResult? {
        let deeplink: Deeplink
        do {
            deeplink = try activator.parser.parse(text)
        } catch {
            return .refused(error)
        }
        return await activate(deeplink, text: text, device: device, dryRun: dryRun, requestID: requestID)
    }

    /// The same, for a deeplink already parsed.
    func activate(
        _ deeplink: Deeplink, text: String, device: String?, dryRun: Bool, requestID: String?
    ) async -> ActivationResult? {
        let refusal = await gateRefusal()
        return await withCheckedContinuation { (continuation: CheckedContinuation<ActivationResult?, Never>) in
            // Never withdrawn: its result is never nil.
            let job = ActivationJob(
                deeplink: deeplink, text: text, device: device, dryRun: dryRun, refusal: refusal, requestID: requestID,
                submitted: .now,
                deliver: { continuation.resume(returning: $0) }
            )
            if !submit(job, bounded: true) { continuation.resume(returning: nil) }
        }
    }

    /// A gate's refusal for an activation submitted now, when the gates are asked per activation.
    func gateRefusal() async -> ActivationError? {
        options.gatesPerActivation && activator.hasGates ? await activator.gates(store: store) : nil
    }

    /// Queues `job` and wakes an idle worker for it.
    /// - Parameter bounded: refuse it when the runtime is at its capacity.
    /// - Returns: false, with the job not queued, when it was refused.
    func submit(_ job: ActivationJob, bounded: Bool) -> Bool {
        enum Handed {
            case worker(Int)
            case queued, refused
        }
        let handed = queue.withLock { queue -> Handed in
            guard !queue.stopping, !bounded || queue.busy + queue.waiting < options.capacity else { return .refused }
            queue.append(job)
            return queue.idle.popLast().map(Handed.worker) ?? .queued
        }
        switch handed {
        case .worker(let worker):
            wakeups[worker].signal()
            return true
        case .queued:
            return true
        case .refused:
            return false
        }
    }

    /// Delivers a job's result, told to the observer.
    func deliver(_ job: ActivationJob, _ result: ActivationResult) {
        observer?.finished(result, after: .now - job.submitted)
        job.deliver(result)
    }

    /// Tells the observer a worker took a job.
    func started() {
        observer?.started()
    }

    /// Why a job was not run: the runtime stopped before it was queued.
    static let stopping = ActivationError(
        code: .serviceOverloaded, message: "the runtime is stopping; nothing was sent")

    /// A new request id, for a caller that stores it before the activation runs.
    public static func makeRequestID() -> String {
        Activator.makeRequestID()
    }

    /// The serial number a deeplink names, or nil when it does not parse.
    public func serialNumber(of text: String) -> String? {
        try? activator.parser.parse(text).serialNumber
    }

    /// Lets the workers finish what is queued, stops them, writes what the database
    /// refused before (trying for a few seconds), and closes the database. Blocks.
    public func close() {
        let idle = queue.withLock { queue -> [Int] in
            queue.stopping = true
            defer { queue.idle = [] }
            return queue.idle
        }
        for worker in idle { wakeups[worker].signal() }
        finished.wait()
        if options.keepsUnwritten { writeUnwrittenBeforeClosing() }
        session.close()
        try? store.close()
    }
}

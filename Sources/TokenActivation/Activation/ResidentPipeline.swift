import Dispatch
import Foundation
import ErrorCodes
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
        let requestID: String?
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
    /// "Finished" writes the database refused after TMP answered, oldest first: written by
    /// ``writeUnwritten()`` as soon as the database accepts writes again.
    private let unwritten = Mutex<[AttemptWrite]>([])
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
    /// - Parameter requestID: the id to audit the attempt under (an Idempotency-Key's,
    ///   stored with the key first); a new one when nil.
    public func activate(deeplink text: String, device: String? = nil, dryRun: Bool = false, requestID: String? = nil) async -> ActivationResult {
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
            let job = Job(deeplink: deeplink, text: text, device: device, dryRun: dryRun, refusal: refusal, requestID: requestID, continuation: continuation)
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

    /// A new request id, for a caller that stores it before the activation runs.
    public static func makeRequestID() -> String {
        Activator.makeRequestID()
    }

    /// The serial number a deeplink names, or nil when it does not parse.
    public func serialNumber(of text: String) -> String? {
        try? activator.parser.parse(text).serialNumber
    }

    /// The attempt audited under `requestID` on the pass `serialNumber`, if one started.
    /// Blocks on the database: call it off the cooperative pool.
    public func attempt(serialNumber: String, requestID: String) throws -> AuditEntry? {
        var found: AuditEntry?
        try store.forEachAuditEntry(AuditFilter(serialNumber: serialNumber)) { entry in
            if entry.requestID == requestID { found = entry }
        }
        return found
    }

    /// Closes, as UNKNOWN `activation.interrupted`, every attempt left open by a process
    /// that is gone (on PostgreSQL, by a host whose lease has expired), and moves its pass
    /// back to `requiresActivation`; attempts whose owner still runs are left alone. Blocks
    /// on the database: call it off the cooperative pool.
    /// - Parameter serialNumber: only this pass's attempts; every pass's when nil.
    /// - Returns: the attempts closed.
    @discardableResult
    public func closeInterrupted(serialNumber: String? = nil) throws -> [Int64] {
        let ledger = session.ledger
        var closed: [Int64] = []
        var seen: Set<PassQuery> = []
        for record in try store.activatingPasses() where serialNumber == nil || record.serialNumber == serialNumber {
            let query = PassQuery(serialNumber: record.serialNumber, passTypeIdentifier: record.passTypeIdentifier, device: record.device)
            guard seen.insert(query).inserted else { continue }
            let resolved = try ledger.resolve(query)
            guard let open = resolved.openAttempt, !open.ownerIsAlive,
                  let activating = resolved.records.first(where: { $0.state == .activating }) else { continue }
            let row = Attempt.interrupted(open, record: activating, at: activator.clock())
            let step = AttemptWrite(kind: .finished, attemptID: open.attemptID, rows: [row], move: .init(activating, to: .requiresActivation), closing: nil)
            do {
                try ledger.write(step)
                closed.append(open.attemptID)
                activator.logger.warning("activation.interruptedClosed", metadata: [
                    "attempt": "\(open.attemptID)", "request-id": "\(open.requestID)", "serial": "\(Mask.identifier(activating.serialNumber))",
                ])
            } catch let error as any CodedError where error.code == .activationInterrupted {
                // Another process or host closed it first.
            }
        }
        return closed
    }

    /// Writes the "finished" steps the database refused, oldest first, stopping at the first
    /// it still refuses. Blocks on the database: call it off the cooperative pool.
    /// - Returns: how many were written, and how many still wait.
    @discardableResult
    public func writeUnwritten() -> (written: Int, waiting: Int) {
        var written = 0
        while let step = unwritten.withLock({ $0.first }) {
            do {
                try session.ledger.write(step)
            } catch let error as any CodedError where error.code == .activationInterrupted {
                // Its lease expired and another host closed it: nothing is left to write.
                activator.logger.warning("activation.finishSuperseded", metadata: ["attempt": "\(step.attemptID)"])
            } catch {
                return (written, unwritten.withLock { $0.count })
            }
            unwritten.withLock { _ = $0.removeFirst() }
            written += 1
            activator.logger.notice("activation.finishWritten", metadata: ["attempt": "\(step.attemptID)"])
        }
        return (written, 0)
    }

    /// The attempts whose "finished" write waits for the database.
    public var unwrittenAttempts: [Int64] {
        unwritten.withLock { $0.map(\.attemptID) }
    }

    /// Lets the workers finish what is queued, stops them, writes what the database
    /// refused before (trying for a few seconds), and closes the database.
    public func close() {
        let idle = queue.withLock { queue -> [Int] in
            queue.stopping = true
            defer { queue.idle = [] }
            return queue.idle
        }
        for worker in idle { wakeups[worker].signal() }
        finished.wait()
        let deadline = ContinuousClock.now + .seconds(5)
        while writeUnwritten().waiting > 0 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.2)
        }
        if !unwrittenAttempts.isEmpty {
            activator.logger.error("activation.finishLost", metadata: [
                "attempts": "\(unwrittenAttempts.map(String.init).joined(separator: ","))",
                "detail": "the database refused these answers until the end; the next start closes them as UNKNOWN (activation.interrupted)",
            ])
        }
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
                let result = session.run(
                    job.deeplink, text: job.text, device: job.device, client: worker, dryRun: job.dryRun, refusal: job.refusal, requestID: job.requestID,
                    keepUnwritten: { [self] step, _ in unwritten.withLock { $0.append(step) } }
                )
                job.continuation.resume(returning: result)
            }
            if queue.withLock({ $0.stopping }) { return }
        }
    }
}

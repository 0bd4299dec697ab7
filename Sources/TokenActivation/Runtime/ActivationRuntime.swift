import ErrorCodes
import Foundation
import Synchronization
import WalletModel

/// The one way an activation runs: a single CLI activation (one slot), a CLI batch, a
/// service request and a service batch's line. The runtime holds the database open, the
/// preflight answered and a fixed number of slots, with a kept-alive TMP connection for each.
/// An activation is the task that submits it (a request's, a batch line's child task): it
/// waits for a slot, admitted up to ``Options/capacity``, in admission order, then runs
/// ``Session``'s one pipeline in that slot; concurrent activations share the ledger's group
/// commit. No thread is the runtime's own.
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
        /// Let a slot queue an activation's "finished" write and answer it once the slot's
        /// next activation's first write is committed with it (one commit instead of two); a
        /// slot nobody waits for commits it alone at once. Off for a single activation.
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
    private let slots: Mutex<RuntimeSlots>
    /// "Finished" writes the database refused after TMP answered, oldest first: written by
    /// ``writeUnwritten()`` as soon as the database accepts writes again.
    let unwritten = Mutex<[AttemptWrite]>([])

    /// Opens the database and answers the preflight.
    /// - Throws: ``StorageError`` when the database cannot be opened.
    public init(activator: Activator, options: Options, observer: (any ActivationObserver)? = nil) async throws {
        self.activator = activator
        self.options = options
        self.observer = observer
        slots = Mutex(RuntimeSlots(count: options.workers))
        store = try await activator.store.open(logger: activator.logger)
        do {
            session = try await Session(
                activator: activator, store: store, slots: options.workers, checkingGates: !options.gatesPerActivation
            )
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// The number of slots: activations that run at once.
    public var workers: Int { options.workers }

    /// Why no activation can be sent (TMP's credentials unreadable, or a gate asked once),
    /// as read when the runtime started; nil when activations can be sent.
    public var unusable: ActivationError? { session.unusable }

    /// The open database, for reads beside the activations (health, passes, audit).
    public var database: any TokenStore { store }

    /// Activations running in a slot and waiting for one.
    public var load: (running: Int, waiting: Int) {
        slots.withLock { $0.load }
    }

    /// Whether a submission now would be refused.
    public var isFull: Bool {
        slots.withLock { $0.admitted >= options.capacity }
    }

    /// Database transactions written, and the activation steps they carried.
    public var figures: (transactions: Int, jobs: Int) { session.ledger.figures }

    /// Activates the token behind one deeplink in the next free slot. Every failure is a
    /// result, as ``Activator/activate(deeplink:device:dryRun:)``'s.
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
        let answer = Promise<ActivationResult?>()
        let job = ActivationJob(
            deeplink: deeplink, text: text, device: device, dryRun: dryRun, refusal: refusal, requestID: requestID,
            submitted: .now, deliver: { answer.give($0) })
        let admission = admit(bounded: true)
        guard await run(job, admission) else { return nil }
        return await answer.value
    }

    /// A gate's refusal for an activation submitted now, when the gates are asked per activation.
    func gateRefusal() async -> ActivationError? {
        options.gatesPerActivation && activator.hasGates ? await activator.gates(store: store) : nil
    }

    /// Admits a job, in the caller's order.
    /// - Parameter bounded: refuse it when the runtime is at its capacity.
    func admit(bounded: Bool) -> RuntimeSlots.Admission {
        slots.withLock { $0.admit(bounded: bounded, capacity: options.capacity) }
    }

    /// Runs an admitted job in the calling task once its slot is free, and hands its slot on.
    /// - Returns: false, with nothing run, when it was refused.
    func run(_ job: ActivationJob, _ admission: RuntimeSlots.Admission) async -> Bool {
        let slot: RuntimeSlots.Slot
        switch admission {
        case .refused: return false
        case .granted(let granted): slot = granted
        case .parked(let promise): slot = await promise.value
        }
        if let isWithdrawn = job.isWithdrawn, isWithdrawn() {
            job.deliver(nil)
            await release(slot)
            return true
        }
        observer?.started()
        let previous = slot.held
        // The database's window counts from the job's arrival (DESIGN §10).
        let activation = await StoreDeadline.serving(
            windowMilliseconds: activator.store.reconnectWindowMilliseconds, from: job.submitted
        ) {
            await session.run(
                job, deferringFinish: options.defersFinish, keepUnwritten: keep,
                settlePrevious: {
                    if let previous { await self.answer(previous) }
                })
        }
        var held: HeldActivation?
        if activation.finish == nil {
            deliver(job, activation.result)
        } else {
            held = HeldActivation(job: job, activation: activation)
        }
        await release(RuntimeSlots.Slot(index: slot.index, held: held))
        return true
    }

    /// Hands a slot to the oldest waiting job, or answers what it holds and leaves it idle.
    private func release(_ slot: RuntimeSlots.Slot) async {
        var next = slots.withLock { $0.finish(slot) }
        if case .answerHeld = next, let held = slot.held {
            await answer(held)
            next = slots.withLock { $0.free(slot.index) }
        }
        switch next {
        case .handed(let waiting, let slot): waiting.give(slot)
        case .idle(let closers): for closer in closers { closer.resume() }
        case .answerHeld: preconditionFailure("a freed slot holds nothing")
        }
    }

    /// Answers a held activation once its "finished" write is committed.
    private func answer(_ held: HeldActivation) async {
        deliver(held.job, await session.settle(held.activation, keepUnwritten: keep))
    }

    /// Where a refused "finished" write is kept, when the runtime keeps them.
    private var keep: (@Sendable (AttemptWrite, any Error) -> Void)? {
        guard options.keepsUnwritten else { return nil }
        return { [self] step, _ in unwritten.withLock { $0.append(step) } }
    }

    /// Delivers a job's result, told to the observer.
    func deliver(_ job: ActivationJob, _ result: ActivationResult) {
        observer?.finished(result, after: .now - job.submitted)
        job.deliver(result)
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

    /// Refuses further activations, lets those admitted finish, writes what the database
    /// refused before (trying for a few seconds), and closes the database.
    public func close() async {
        await withCheckedContinuation { (closer: CheckedContinuation<Void, Never>) in
            if slots.withLock({ $0.stop(closer: closer) }) { closer.resume() }
        }
        if options.keepsUnwritten { await writeUnwrittenBeforeClosing() }
        await session.close()
        try? await store.close()
    }
}

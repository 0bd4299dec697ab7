import WalletModel

/// The runtime's admission: a fixed number of slots (an activation running in each, with
/// its own TMP client), and the jobs admitted and waiting for one, oldest first. A slot is
/// handed from a finished activation straight to the oldest waiting job, with the finished
/// activation's deferred "finished" write, which the next activation's first commit carries;
/// the most recently freed slot is taken first, so a light load keeps to few warm
/// connections instead of spreading over every slot's.
struct RuntimeSlots {
    /// A slot handed to a job, with the activation it must answer after its first write.
    struct Slot: Sendable {
        let index: Int
        let held: HeldActivation?
    }

    enum Admission: Sendable {
        case refused
        case granted(Slot)
        /// Given a slot in admission order, as activations before it finish.
        case parked(Promise<Slot>)
    }

    /// What a finished activation's slot does next.
    enum Release {
        /// Handed to the oldest waiting job.
        case handed(Promise<Slot>, Slot)
        /// Idle; these close() calls may now return.
        case idle([CheckedContinuation<Void, Never>])
        /// Nothing waits but the slot holds an activation to answer: answer it, then
        /// ``free(_:)``.
        case answerHeld
    }

    let count: Int
    private var idle: [Int]
    private var waiting: [Promise<Slot>?] = []
    private var head = 0
    /// Jobs admitted whose own activation has not ended: running and waiting.
    private(set) var admitted = 0
    private var stopping = false
    private var closers: [CheckedContinuation<Void, Never>] = []

    init(count: Int) {
        self.count = count
        // Slot 0 ends up on top of the idle stack: the first activations use it.
        idle = Array((0..<count).reversed())
    }

    /// Slots running an activation (or answering one), and jobs waiting for a slot.
    var load: (running: Int, waiting: Int) { (count - idle.count, waiting.count - head) }

    /// Admits a job; `bounded`: refused at `capacity` jobs admitted.
    mutating func admit(bounded: Bool, capacity: Int) -> Admission {
        guard !stopping, !bounded || admitted < capacity else { return .refused }
        admitted += 1
        if let index = idle.popLast() { return .granted(Slot(index: index, held: nil)) }
        let promise = Promise<Slot>()
        waiting.append(promise)
        return .parked(promise)
    }

    /// A job's activation ended in `slot`, holding the activation it leaves unanswered.
    mutating func finish(_ slot: Slot) -> Release {
        admitted -= 1
        if let next = takeWaiting() { return .handed(next, slot) }
        if slot.held != nil { return .answerHeld }
        return makeIdle(slot.index)
    }

    /// A slot whose held activation was answered.
    mutating func free(_ index: Int) -> Release {
        if let next = takeWaiting() { return .handed(next, Slot(index: index, held: nil)) }
        return makeIdle(index)
    }

    /// Refuses further jobs.
    /// - Returns: true when every slot is idle; otherwise `closer` is resumed once they are.
    mutating func stop(closer: CheckedContinuation<Void, Never>) -> Bool {
        stopping = true
        if idle.count == count { return true }
        closers.append(closer)
        return false
    }

    private mutating func takeWaiting() -> Promise<Slot>? {
        guard head < waiting.count else { return nil }
        let next = waiting[head].take()
        head += 1
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        }
        return next
    }

    private mutating func makeIdle(_ index: Int) -> Release {
        idle.append(index)
        guard idle.count == count else { return .idle([]) }
        defer { closers = [] }
        return .idle(closers)
    }
}

/// An activation TMP answered whose "finished" write waits in the commit queue.
struct HeldActivation: Sendable {
    let job: ActivationJob
    let activation: DeferredActivation
}

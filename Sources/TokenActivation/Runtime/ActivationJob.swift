import WalletModel

/// One activation admitted to the runtime, waiting for a worker or running on one.
struct ActivationJob: Sendable {
    let deeplink: Deeplink
    let text: String
    let device: String?
    let dryRun: Bool
    /// A user gate's refusal, asked when the activation was submitted.
    let refusal: ActivationError?
    /// The id to audit the attempt under; a new one when nil.
    let requestID: String?
    let submitted: ContinuousClock.Instant
    /// Asked when a worker takes the job: true withdraws it unrun (a line of a batch that
    /// stopped after it was queued).
    var isWithdrawn: (@Sendable () -> Bool)? = nil
    /// Takes the result, once: a waiting request's continuation, or a batch's line; nil
    /// when the job was withdrawn.
    let deliver: @Sendable (ActivationResult?) -> Void
}

/// The jobs waiting for a worker, oldest first, and the idle workers, the most recently
/// busy last: it is woken first, so a light load keeps to few warm connections instead of
/// spreading over every worker's.
struct JobQueue {
    /// Taken jobs are cleared at once: a job holds its caller's closures.
    private var pending: [ActivationJob?] = []
    private var head = 0
    var idle: [Int] = []
    var busy = 0
    var stopping = false

    var waiting: Int { pending.count - head }

    mutating func append(_ job: ActivationJob) {
        pending.append(job)
    }

    mutating func take() -> ActivationJob? {
        guard head < pending.count else { return nil }
        let job = pending[head].take()
        head += 1
        if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            head = 0
        }
        return job
    }
}

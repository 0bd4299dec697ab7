import WalletModel

/// One activation admitted to the runtime, waiting for a slot or running in one.
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
    /// Asked when the job gets its slot: true withdraws it unrun (a line of a batch that
    /// stopped after it was admitted).
    var isWithdrawn: (@Sendable () -> Bool)? = nil
    /// Takes the result, once: a waiting request's promise, or a batch's line; nil when the
    /// job was withdrawn.
    let deliver: @Sendable (ActivationResult?) -> Void
}

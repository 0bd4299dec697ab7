/// Told of every activation the runtime runs (a service's metrics and log).
public protocol ActivationObserver: Sendable {
    /// A worker took the activation.
    func started()
    /// The activation's result, and the time from its submission to its answer.
    func finished(_ result: ActivationResult, after duration: Duration)
}

/// The activation state of a wallet pass.
public enum PassState: String, Sendable, CaseIterable {
    /// Waiting for its token to be activated (the default for new records).
    case requiresActivation
    /// An activation request is in flight.
    case activating
    /// TMP approved the activation.
    case activated
    /// Temporarily unusable; never sent to TMP.
    case suspended
    /// Permanently unusable; never sent to TMP.
    case deactivated

    /// The names accepted on input, for messages.
    public static let names = allCases.map(\.rawValue).joined(separator: ", ")
}

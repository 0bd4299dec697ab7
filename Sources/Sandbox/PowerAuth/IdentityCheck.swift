/// What the server decides about the identity attributes of a custom activation.
public enum IdentityDecision: Sendable {
    /// Create the activation, carrying these activation flags (e.g. `VERIFICATION_PENDING`).
    case accept(flags: [String])
    /// Refuse it; `remainingAttempts` is reported top-level as onboarding servers do.
    case reject(message: String, remainingAttempts: Int?)
}

/// The pluggable check of custom identity attributes, given the id the activation
/// will have if accepted. The default accepts any non-empty set of attributes; the
/// onboarding simulator checks `credentialsType: ONBOARDING` activations (its OTPs).
public typealias IdentityCheck = @Sendable (_ attributes: [String: String], _ activationId: String) -> IdentityDecision

public enum IdentityChecks {
    public static let acceptNonEmpty: IdentityCheck = { attributes, _ in
        attributes.isEmpty
            ? .reject(message: "POWER_AUTH_ACTIVATION_INVALID", remainingAttempts: nil) : .accept(flags: [])
    }
}

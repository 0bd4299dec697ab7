/// What the onboarding core says about the user behind this installation.
public enum UserActivationStatus: Sendable, Equatable {
    /// Activated and verified: tokens may be activated.
    case finished
    /// Not (yet) allowed; `nextStep` tells the user what to do.
    case notFinished(nextStep: String)
    /// No onboarding core is available to ask.
    case notConfigured
}

/// The one question token activation asks the onboarding core before sending anything.
public protocol UserActivationCheck: Sendable {
    /// Fetched live, once per process.
    /// - Throws: ``ActivationError`` `onboarding.unreachable` when the server cannot be asked.
    func status() async throws -> UserActivationStatus
}

/// The only check until the onboarding core exists: it is never finished.
public struct OnboardingNotConfigured: UserActivationCheck {
    public init() {}
    public func status() async throws -> UserActivationStatus { .notConfigured }
}

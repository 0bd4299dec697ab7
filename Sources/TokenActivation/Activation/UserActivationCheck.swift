/// What the onboarding core says about the user behind this installation.
public enum UserActivationStatus: Sendable, Equatable {
    /// Activated and verified: tokens may be activated.
    case finished
    /// Not (yet) allowed; `nextStep` tells the user what to do.
    case notFinished(nextStep: String)
}

/// The one question token activation asks the onboarding core before sending anything.
public protocol UserActivationCheck: Sendable {
    /// Fetched live, once per process.
    /// - Throws: ``ActivationError`` `onboarding.unreachable` when the server cannot be asked.
    ///   ``OnboardingUserCheck`` is the implementation.
    func status() async throws -> UserActivationStatus
}

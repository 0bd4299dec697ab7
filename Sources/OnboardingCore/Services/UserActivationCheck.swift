import ErrorCodes
import WalletModel

/// What the onboarding core says about the user behind this installation.
public enum UserActivationStatus: Sendable, Equatable {
    /// Activated and verified: tokens may be activated.
    case finished
    /// Not (yet) allowed: `reason` says why, `nextStep` what the user can do.
    case notFinished(reason: String, nextStep: NextStep)
}

/// The one question token activation asks the onboarding core before sending anything.
public protocol UserActivationCheck: Sendable {
    /// Fetched live, once per process, on the caller's open database.
    /// - Throws: a ``CodedError``: `onboarding.unreachable` when the server cannot be
    ///   asked, `config.*` when it is not configured, `storage.*`.
    func status(store: any OnboardingRecords) async throws -> UserActivationStatus
}

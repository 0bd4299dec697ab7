import Foundation

/// What `tokenctl login status` and every step report about the user: never the PIN, the
/// token, a ticket or the mpinId.
public struct LoginStatus: Sendable, Equatable {
    public let identity: String?
    public let deviceName: String?
    /// The user's state; `INVALID` when this installation has none (the contract's state
    /// of a user that is not there).
    public let state: LoginUserState
    /// Whether this installation has a login user at all.
    public let hasUser: Bool
    public let failedAttempts: Int
    public let lastLoginAt: Date?
    public let nextStep: NextStep
    /// The server the user registered with, when `login.backend-url` now names another:
    /// the user's requests still go there (``Discovery/movedFrom(configured:)``).
    public let registeredBackendURL: String?

    init(_ user: LoginUser?, configuredBackend: String) {
        registeredBackendURL = user?.discovery.movedFrom(configured: configuredBackend)
        identity = user?.identity
        deviceName = user?.deviceName
        state = user?.state ?? .invalid
        hasUser = user != nil
        failedAttempts = user?.failedAttempts ?? 0
        lastLoginAt = user?.lastLoginAt
        nextStep = LoginStep.nextStep(from: user?.state)
    }
}

/// A successful login: the relying party accepted the authorization code.
public struct LoginOutcome: Sendable, Equatable {
    public let identity: String
    public let loggedInAt: Date
    /// Milliseconds of the client's crypto (pass 1 and pass 2).
    public let cryptoMilliseconds: Double
    /// HTTP requests the login made.
    public let requests: Int
}

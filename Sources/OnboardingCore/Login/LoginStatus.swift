import Foundation

/// What `tokenctl login status` and every step report about the user: never the PIN, the
/// token, a ticket or the mpinId.
public struct LoginStatus: Sendable, Equatable {
    public let identity: String?
    public let deviceName: String?
    /// nil: this installation has no user.
    public let state: LoginUserState?
    public let failedAttempts: Int
    public let lastLoginAt: Date?
    public let nextStep: NextStep

    init(_ user: LoginUser?) {
        identity = user?.identity
        deviceName = user?.deviceName
        state = user?.state
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

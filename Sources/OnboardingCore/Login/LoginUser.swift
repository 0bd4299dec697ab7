import Foundation

/// The states of the installation's one PIN login user (the MIRACL SDK's user states).
///
/// Legal transitions, each by one command:
/// - (none), INVALID or BLOCKED → STARTED_REGISTRATION: `register` (an INVALID or BLOCKED user
///   is deleted first);
/// - STARTED_REGISTRATION → STARTED_REGISTRATION: `resend-email`;
/// - STARTED_REGISTRATION → ACTIVATED: `confirm` (the e-mail link was used; both shares fetched);
/// - ACTIVATED → REGISTERED: `set-pin` (the client secret becomes the PIN-less token);
/// - REGISTERED → REGISTERED: a login, right or wrong; → BLOCKED when the platform answers 410;
/// - any → (none): `delete`.
public enum LoginUserState: String, Sendable, Equatable, CaseIterable, Codable {
    case invalid = "INVALID"
    case startedRegistration = "STARTED_REGISTRATION"
    case activated = "ACTIVATED"
    case registered = "REGISTERED"
    case blocked = "BLOCKED"
}

/// A step of the login flow, checked against the user's state before anything is sent.
public enum LoginStep: String, Sendable, CaseIterable {
    case register
    case resendEmail = "resend-email"
    case confirm
    case setPIN = "set-pin"
    case logIn = "run"

    /// The states this step may start from; nil stands for "no user".
    var allowedFrom: Set<LoginUserState?> {
        switch self {
        case .register: [nil, .invalid, .blocked]
        case .resendEmail, .confirm: [.startedRegistration]
        case .setPIN: [.activated]
        case .logIn: [.registered]
        }
    }

    /// Whether this step may run for a user in `state` (nil: no user).
    public func isAllowed(from state: LoginUserState?) -> Bool {
        allowedFrom.contains(state)
    }

    /// What the user should do instead, from `state`.
    static func nextStep(from state: LoginUserState?) -> NextStep {
        switch state {
        case nil, .invalid: .registerLogin
        case .startedRegistration: .confirmLogin
        case .activated: .setLoginPIN
        case .registered: .logIn
        case .blocked: .deleteLoginAndRegister
        }
    }
}

/// The installation's PIN login user as stored: never the PIN, and the client secret only
/// between `confirm` and `set-pin`.
public struct LoginUser: Sendable, Equatable {
    public var identity: String
    public var deviceName: String
    public var mpinID: String
    public var regOTT: String
    public var state: LoginUserState
    /// The client secret (ACTIVATED) or the token (REGISTERED), hex of `04‖x‖y`; nil otherwise.
    var secret: String?
    /// The discovery answer the user registered with.
    var discovery: Discovery
    /// Consecutive wrong PINs this client saw since the last success.
    public var failedAttempts: Int
    public var lastLoginAt: Date?
    /// The relying party's answer to the last successful login.
    public var lastLoginAnswer: String?
    public var createdAt: Date
}

/// The PIN app login's one user per instance id (`login_user`).
public protocol LoginUserRecords: Sendable {
    func loginUser(instanceID: String) async throws -> LoginUserRow?

    /// Writes the user, replacing the instance's previous one.
    func saveLoginUser(_ user: LoginUserRow) async throws

    /// Deletes the instance's user; false when there was none.
    func deleteLoginUser(instanceID: String) async throws -> Bool
}

/// A `login_user` row. `secret` holds the client secret only between confirmation and
/// set-pin, then the token (useless without the PIN, which is never stored); nil for a
/// blocked user. Times are ISO 8601; `discovery` is the discovery answer's JSON.
public struct LoginUserRow: Sendable, Equatable {
    public var instanceID: String
    public var identity: String
    public var deviceName: String
    public var mpinID: String
    public var regOTT: String
    public var state: String
    public var secret: String?
    public var discovery: String
    public var failedAttempts: Int
    public var lastLoginAt: String?
    public var lastLoginAnswer: String?
    public var createdAt: String

    public init(
        instanceID: String, identity: String, deviceName: String, mpinID: String, regOTT: String, state: String,
        secret: String?,
        discovery: String, failedAttempts: Int, lastLoginAt: String?, lastLoginAnswer: String?, createdAt: String
    ) {
        self.instanceID = instanceID
        self.identity = identity
        self.deviceName = deviceName
        self.mpinID = mpinID
        self.regOTT = regOTT
        self.state = state
        self.secret = secret
        self.discovery = discovery
        self.failedAttempts = failedAttempts
        self.lastLoginAt = lastLoginAt
        self.lastLoginAnswer = lastLoginAnswer
        self.createdAt = createdAt
    }
}

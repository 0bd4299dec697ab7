import Foundation

/// How the simulated MIRACL platform and relying party behave; tests inject the clock.
public struct MIRACLOptions: Sendable {
    /// The OIDC client the relying party is registered as (`X-MIRACL-CID`, `client_id`).
    public var clientID: String
    /// The relying party's OIDC client secret.
    public var clientSecret: String
    /// The platform's now (registration and params expiry, id_token `iat`/`exp`).
    public var clock: @Sendable () -> Date
    /// Consecutive failed logins that block an identity (the third answers 410).
    public var failuresBeforeBlock: Int

    public init(
        clientID: String = "sandbox-client", clientSecret: String = "sandbox-client-secret",
        clock: @escaping @Sendable () -> Date = { Date() }, failuresBeforeBlock: Int = 3
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clock = clock
        self.failuresBeforeBlock = failuresBeforeBlock
    }
}

/// A defect the OIDC provider puts into its next id_token, so tests can show the relying
/// party refuses it.
public enum IDTokenDefect: Sendable {
    /// Signed with a key the relying party does not trust.
    case forged
    /// `exp` already passed.
    case expired
    /// `aud` names another client.
    case wrongAudience
    /// `nonce` the relying party never issued.
    case unknownNonce
}

import ErrorCodes
import HTTPTransport

/// The PIN app login's configuration (`login.*`): the MIRACL platform, the OIDC client the
/// issuer registered there, and the issuer's relying party that redeems authorization codes.
public struct LoginSettings: Sendable, Equatable {
    /// `login.backend-url` (the platform: `/rps/clientSettings` is discovered under it),
    /// `login.connect-timeout-ms`, `login.timeout-ms`, `login.tls.*`; the relying party is
    /// reached with the same timeouts and TLS files.
    public var connection: ConnectionSettings
    /// `login.client-id`: sent as `X-MIRACL-CID`.
    public var clientID: String
    /// `login.relying-party-url`: serves `/authzurl` and `/authtoken`.
    public var relyingPartyURL: String

    public init(connection: ConnectionSettings, clientID: String, relyingPartyURL: String) {
        self.connection = connection
        self.clientID = clientID
        self.relyingPartyURL = relyingPartyURL
    }

    /// https unless on loopback, for the backend and the relying party (the authorization
    /// code and the ID token travel to it), and usable TLS files.
    public func checkConnection() throws(ConfigurationError) {
        try connection.check(keyPrefix: Keys.prefix, urlKey: Keys.backendURL)
        try ConnectionSettings.checkTransportSecurity(relyingPartyURL, key: Keys.relyingPartyURL)
    }

    /// The configuration keys, for messages.
    public enum Keys {
        public static let prefix = "login"
        public static let backendURL = "login.backend-url"
        public static let clientID = "login.client-id"
        public static let relyingPartyURL = "login.relying-party-url"
    }
}

/// The platform's `clientSettings`: every URL the client calls comes from here.
public struct Discovery: Sendable, Equatable, Codable {
    public var registerURL: String
    public var signatureURL: String
    /// The second D-TA's base, ending in `/`.
    public var certivoxURL: String
    public var mpinAuthServerURL: String
    public var mobileAuthenticateURL: String
    public var codeStatusURL: String
}

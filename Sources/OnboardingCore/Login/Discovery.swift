/// The platform's `clientSettings`: every URL the client calls comes from here.
public struct Discovery: Sendable, Equatable, Codable {
    public var registerURL: String
    public var signatureURL: String
    /// The second D-TA's base, ending in `/`.
    public var certivoxURL: String
    public var mpinAuthServerURL: String
    public var mobileAuthenticateURL: String
    public var codeStatusURL: String
    /// The `login.backend-url` the discovery was asked at; nil for users stored before it
    /// was kept.
    public var backendURL: String?

    /// The registration's server when the configuration now names another one: the user's
    /// requests keep going to the URLs of its registration.
    public func movedFrom(configured: String) -> String? {
        guard let backendURL else { return nil }
        func normal(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }
        return normal(backendURL) == normal(configured) ? nil : backendURL
    }
}

import HTTPTransport
import PowerAuth

/// Why a PowerAuth operation failed, with a stable code and a message safe to print.
public enum PowerAuthClientError: Error, Sendable, Equatable {
    case notActivated(instance: String)
    case alreadyActivated(instance: String)
    /// The server refused the custom activation (identity attributes not accepted).
    case rejected(message: String, remainingAttempts: Int?)
    /// HTTP 401 `POWERAUTH_AUTH_FAIL`: wrong PIN, blocked or removed activation, bad token.
    case authenticationFailed(message: String)
    /// The server answered something this client cannot accept.
    case protocolError(String)
    /// HTTP 5xx: the server failed.
    case serverError(status: Int, message: String)
    case unreachable(TransportError)
    case invalidPIN(String)
    case unsupportedFactor(SignatureFactor)

    public var code: String {
        switch self {
        case .notActivated: "powerauth.notActivated"
        case .alreadyActivated: "powerauth.alreadyActivated"
        case .rejected: "powerauth.rejected"
        case .authenticationFailed: "powerauth.authFailed"
        case .protocolError: "powerauth.protocol"
        case .serverError: "powerauth.serverError"
        case .unreachable: "powerauth.unreachable"
        case .invalidPIN: "powerauth.invalidPIN"
        case .unsupportedFactor: "powerauth.unsupportedFactor"
        }
    }

    public var message: String {
        switch self {
        case .notActivated(let instance): "no device activation for instance \"\(instance)\"; run `tokenctl device activate` first"
        case .alreadyActivated(let instance): "instance \"\(instance)\" already has a device activation; `tokenctl device remove` forgets it"
        case let .rejected(message, remaining):
            "the server refused the activation: \(message)" + (remaining.map { " (\($0) attempts left)" } ?? "")
        case .authenticationFailed(let message): "the server refused the authentication: \(message)"
        case .protocolError(let why): "unexpected answer from the PowerAuth server: \(why)"
        case let .serverError(status, message): "the PowerAuth server failed with HTTP \(status): \(message)"
        case .unreachable(let error): "the PowerAuth server is unreachable: \(error.description)"
        case .invalidPIN(let why): why
        case .unsupportedFactor(let factor): "signature type \(factor.rawValue) needs a biometry key, which a tokenctl device does not have"
        }
    }
}

import ErrorCodes
import HTTPTransport
import PowerAuth

/// Why a PowerAuth operation failed, with a stable code and a message safe to print.
public enum PowerAuthClientError: GuidedError, Equatable {
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
    /// A token request with no token stored for the instance.
    case noToken(instance: String)
    /// A signature with the knowledge factor refused, the activation still ACTIVE.
    case wrongPIN(remainingAttempts: Int)
    /// The activation is BLOCKED on the server.
    case blocked
    case unsupportedFactor(SignatureFactor)

    public var code: ErrorCode {
        switch self {
        case .notActivated: .powerAuthNotActivated
        case .alreadyActivated: .powerAuthAlreadyActivated
        case .rejected: .powerAuthRejected
        case .authenticationFailed: .powerAuthAuthFailed
        case .protocolError: .powerAuthProtocol
        case .serverError: .powerAuthServerError
        case .unreachable(let error): error.kind == .tlsFiles ? .configTLSFiles : .powerAuthUnreachable
        case .invalidPIN: .powerAuthInvalidPIN
        case .noToken: .powerAuthNoToken
        case .wrongPIN: .powerAuthWrongPIN
        case .blocked: .powerAuthBlocked
        case .unsupportedFactor: .powerAuthUnsupportedFactor
        }
    }

    public var nextStep: NextStep? {
        switch self {
        case .notActivated: .activateDevice
        case .alreadyActivated: .removeDevice
        case .noToken: .createToken
        case .blocked: .removeDeviceLocallyAndOnboard
        default: nil
        }
    }

    public var message: String {
        switch self {
        case .notActivated(let instance): "no device activation for instance \"\(instance)\""
        case .alreadyActivated(let instance): "instance \"\(instance)\" already has a device activation"
        case let .rejected(message, remaining):
            "the server refused the activation: \(message)" + (remaining.map { " (\($0) attempts left)" } ?? "")
        case .authenticationFailed(let message): "the server refused the authentication: \(message)"
        case .protocolError(let why): "unexpected answer from the PowerAuth server: \(why)"
        case let .serverError(status, message): "the PowerAuth server failed with HTTP \(status): \(message)"
        case .unreachable(let error): "the PowerAuth server is unreachable: \(error.words)"
        case .invalidPIN(let why): why
        case .noToken(let instance): "no token stored for instance \"\(instance)\""
        case .wrongPIN(let remaining):
            "wrong PIN: the server refused the signature; \(remaining) attempt\(remaining == 1 ? "" : "s") left before the device activation is blocked"
        case .blocked: "the device activation is BLOCKED on the server (too many wrong PINs)"
        case .unsupportedFactor(let factor):
            "signature type \(factor.rawValue) needs a biometry key, which a tokenctl device does not have"
        }
    }
}

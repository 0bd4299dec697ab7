import ErrorCodes
import HTTPTransport

/// Why a PIN login step stopped. Messages never carry the PIN, the token or a ticket.
public struct LoginError: GuidedError, Equatable {
    public let code: ErrorCode
    public let message: String
    public let nextStep: NextStep?
    /// Wrong PINs the platform will still take before it blocks the identity, where known.
    public let attemptsLeft: Int?

    init(_ code: ErrorCode, _ message: String, nextStep: NextStep? = nil, attemptsLeft: Int? = nil) {
        self.code = code
        self.message = message
        self.nextStep = nextStep
        self.attemptsLeft = attemptsLeft
    }

    /// A PIN that could not be read or is not 4 to 12 digits.
    public static func invalidPIN(_ message: String) -> LoginError {
        LoginError(.loginInvalidPIN, message)
    }

    /// `login delete` with no user.
    public static let noUser = LoginError(
        .loginNoUser, "this installation has no PIN login user", nextStep: .registerLogin)

    static func wrongState(_ step: LoginStep, state: LoginUserState?) -> LoginError {
        guard let state else { return .noUser }
        if step == .register {
            return LoginError(
                .loginUserExists,
                "this installation already has a PIN login user (\(state.rawValue)); one user per installation",
                nextStep: .deleteLogin)
        }
        return LoginError(
            .loginWrongState, "`login \(step.rawValue)` needs another state; the user is \(state.rawValue)",
            nextStep: LoginStep.nextStep(from: state))
    }

    static func transport(_ error: TransportError, server: String) -> LoginError {
        switch error.kind {
        case .tls, .tlsFiles: LoginError(.loginTLS, "TLS with \(server) failed: \(error.words)")
        default: LoginError(.loginUnreachable, "\(server) cannot be reached: \(error.words)")
        }
    }

    static func unexpected(status: Int, step: String, body: String) -> LoginError {
        let detail = String(body.prefix(120).filter { !$0.isNewline })
        if status >= 500 || status == 0 {
            return LoginError(.loginServerError, "\(step) failed with HTTP \(status): \(detail)")
        }
        return LoginError(.loginProtocol, "\(step) answered HTTP \(status) outside the contract: \(detail)")
    }
}

import Foundation
import OnboardingCore
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

/// Text and JSON shapes of the login commands: never the PIN, the token, a ticket or the mpinId.
enum LoginText {
    static func json(_ status: LoginStatus) -> JSONObject {
        JSONObject([
            "identity": status.identity.map { .string($0) } ?? .null,
            "deviceName": status.deviceName.map { .string($0) } ?? .null,
            "state": .string(status.state.rawValue),
            "failedAttempts": .int(status.failedAttempts),
            "lastLoginAt": status.lastLoginAt.map { .string($0.ISO8601Format()) } ?? .null,
            "next": .string(NextStepText.command(status.nextStep)),
            "registeredBackendURL": .optional(status.registeredBackendURL),
        ])
    }

    /// A step's answer: the JSON object, or `done` and the status lines.
    static func print(_ status: LoginStatus, json: Bool, done: String?) {
        Output.print(json: json ? self.json(status) : nil, lines: lines(status, done: done))
    }

    static func lines(_ status: LoginStatus, done: String?) -> [String] {
        var lines: [String] = done.map { [$0] } ?? []
        guard status.hasUser else {
            return lines + [
                "no login user on this installation", "next          \(NextStepText.command(status.nextStep))",
            ]
        }
        let state = status.state
        lines += [
            "identity      \(SafeText.escaped(status.identity ?? ""))",
            "device        \(SafeText.escaped(status.deviceName ?? ""))",
            "state         \(state.rawValue)",
        ]
        if status.failedAttempts > 0 { lines.append("wrong PINs    \(status.failedAttempts) since the last login") }
        if let last = status.lastLoginAt { lines.append("last login    \(last.ISO8601Format())") }
        if let registered = status.registeredBackendURL {
            lines.append(
                "server        \(SafeText.escaped(registered)) (where it registered; login.backend-url names another: "
                    + "\(NextStepText.command(.deleteLoginAndRegister)) to move it)")
        }
        lines.append("next          \(NextStepText.command(status.nextStep))")
        return lines
    }

    static func json(_ outcome: LoginOutcome) -> JSONObject {
        JSONObject([
            "identity": .string(outcome.identity),
            "loggedIn": .bool(true),
            "loggedInAt": .string(outcome.loggedInAt.ISO8601Format()),
            "requests": .int(outcome.requests),
            "cryptoMicroseconds": .int(Int(outcome.cryptoMilliseconds * 1000)),
        ])
    }

    static func lines(_ outcome: LoginOutcome) -> [String] {
        [
            "logged in as \(outcome.identity) at \(outcome.loggedInAt.ISO8601Format()); the relying party accepted the login"
        ]
    }
}

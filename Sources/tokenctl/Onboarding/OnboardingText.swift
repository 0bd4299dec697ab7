import Foundation
import OnboardingCore
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

/// Text and JSON shapes of the onboarding commands. OTPs and PINs are never printed
/// (but by `onboarding otp`, whose job it is).
enum OnboardingText {
    /// The credentials object from `--credentials` or `--credentials-file`.
    static func credentials(text: String?, file: String?) throws -> JSONObject.Value {
        let data: Data
        if let text {
            data = Data(text.utf8)
        } else if let file {
            data = try InputFile.read(file, option: "--credentials-file")
        } else {
            data = Data()
        }
        guard let value = try? JSONDecoder().decode(JSONObject.Value.self, from: data),
            case .object(let object) = value, !object.members.isEmpty
        else {
            throw UsageError(message: "the credentials must be a non-empty JSON object")
        }
        return value
    }

    static func json(_ started: ActivationProcess.Started) -> JSONObject {
        JSONObject([
            "processId": .string(started.processID),
            "status": started.status.map { .string($0.rawValue) } ?? .null,
            "otpResendPeriodSeconds": started.otpResendPeriodSeconds.map { .int($0) } ?? .null,
        ])
    }

    static func lines(_ started: ActivationProcess.Started) -> [String] {
        [
            "process       \(started.processID)",
            "status        \(started.status?.rawValue ?? "unknown")",
            "next          the user receives an OTP: tokenctl onboarding activate --otp CODE"
                + (started.otpResendPeriodSeconds.map { " (a new one after \($0) s: tokenctl onboarding resend-otp)" }
                    ?? ""),
        ]
    }

    static func json(processID: String, _ status: ActivationProcessStatus) -> JSONObject {
        JSONObject(["processId": .string(processID), "status": .string(status.rawValue)])
    }

    static func lines(processID: String, _ status: ActivationProcessStatus) -> [String] {
        ["process       \(processID)", "status        \(status.rawValue)", "next          \(nextStep(status))"]
    }

    static func nextStep(_ status: ActivationProcessStatus) -> String {
        switch status {
        case .activationInProgress: "tokenctl onboarding activate --otp CODE"
        case .verificationInProgress: "identity verification is running on the server"
        case .failed: "start over: tokenctl onboarding cancel, then tokenctl onboarding start"
        case .finished: "none: the user activation is finished"
        }
    }

    static func json(_ activated: OnboardingService.Activated) -> JSONObject {
        JSONObject([
            "activationId": .string(activated.activation.activationID),
            "fingerprint": .string(activated.activation.fingerprint),
            "name": .string(activated.activation.name),
            "flags": activated.flags.map { .array($0.map { .string($0) }) } ?? .null,
        ])
    }

    static func lines(_ activated: OnboardingService.Activated) -> [String] {
        var lines = ["activated \(activated.activation.activationID) (fingerprint \(activated.activation.fingerprint))"]
        switch activated.flags {
        case .none: lines.append("the activation flags could not be read: tokenctl device status shows them")
        case .some(let flags) where flags.isEmpty: lines.append("the user activation is finished")
        case .some(let flags):
            lines.append(
                "flags \(flags.joined(separator: ", ")): identity verification must end before tokens can be activated")
        }
        return lines
    }
}

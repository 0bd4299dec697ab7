import ArgumentParser
import Foundation
import Logging
import OnboardingCore
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

struct VerificationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verification",
        abstract: "Identity verification of the onboarded user: consent, document images, presence check, OTP.",
        discussion: """
            A device activated through onboarding carries VERIFICATION_PENDING until the user's \
            identity is verified; until then `tokenctl activate` refuses to send (under \
            require-finished-user-activation). The server drives the flow: `verification status` \
            names the state and the command to run next; `verification run` walks the whole flow \
            on a terminal. Every command but status uses the process of the last successful status.
            Exit codes: 0 ok; 2 wrong OTP, attempts left, or (run) the consent not approved \
            (verification.consentNotApproved); 3 verification failed or rejected (restart it), the \
            server ended the onboarding process (remove the device activation and onboard again), \
            or the OTP ran out; \
            64 usage; 65 a refused document file or a command in the wrong state; 66 an unreadable \
            file; 69 server unreachable or failing; 75 run status first, \
            or the OTP resend period has not passed; 76 an answer no state fits; 77 no device \
            activation, or it is no longer active; 78 configuration.
            """,
        subcommands: [
            VerificationStatusCommand.self, VerificationConsent.self, VerificationDocuments.self,
            VerificationPresenceCheck.self,
            VerificationOTPCommand.self, VerificationRestart.self, VerificationCancel.self, VerificationRun.self,
        ]
    )
}

extension GlobalOptions {
    func verificationService() async throws -> VerificationService {
        try await settings().verificationService(
            environment: ProcessInfo.processInfo.environment, logger: Logger(label: "tokenctl.verification"))
    }

    /// Runs `body` on the verification with the server configuration checked first.
    func withVerification<T>(_ body: (VerificationProcess) async throws -> T) async throws -> T {
        try await verificationService().resolvingServer().withProcess(body)
    }
}

/// Prints a state; a failed or ended verification is an answer that exits 3.
func printState(_ state: VerificationState, json: Bool) throws {
    VerificationText.print(state, json: json)
    switch state {
    case .failed, .endstate: throw ExitCode(3)
    default: break
    }
}

struct VerificationStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract:
            "Ask the server where the verification stands, and name the next step (exit 3 when it failed or ended)."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        var report: VerificationReport?
        try await reportingErrors(json: output.json) {
            report = try await global.withVerification { try await $0.report() }
        }
        guard let report else { return }
        if report.presenceCheckFailed {
            var object = VerificationText.json(report.state)
            object.append("presenceCheckFailed", .bool(true))
            Output.print(
                json: output.json ? object : nil,
                lines: VerificationText.lines(report.state, note: VerificationText.presenceCheckFailed))
            return
        }
        try printState(report.state, json: output.json)
    }
}

struct VerificationConsent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consent",
        abstract: "Print the consent text; with --approve, approve it and start the verification."
    )

    @Flag(help: "Approve the consent (the user has read it) and start the verification.")
    var approve = false

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let state = try await global.withVerification { process in
                if approve { return try await process.approveConsent() }
                let text = try await process.consentText()
                // In an end state nothing can continue: the state names the way out, not --approve.
                let current = try await process.status()
                if case .endstate = current { return current }
                return .consent(text: text)
            }
            try printState(state, json: output.json)
        }
    }
}

struct VerificationRestart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restart",
        abstract: "End this verification on the server and start again from the consent (after a failure)."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            VerificationText.print(try await global.withVerification { try await $0.restart() }, json: output.json)
        }
    }
}

struct VerificationCancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract:
            "Cancel the whole onboarding process; the server removes the device activation, and it is forgotten here.",
        discussion:
            "Onboarding must then start again (`tokenctl onboarding start`). A verification that succeeded is cancelled only with --force: it discards the verified device activation."
    )

    @Flag(help: "Cancel also a verification that succeeded, discarding the verified device activation.")
    var force = false
    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            try await global.withVerification { try await $0.cancelWholeProcess(force: force) }
            Output.print(
                json: output.json
                    ? JSONObject(["cancelled": .bool(true), "next": .string(NextStepText.command(.onboard))]) : nil,
                lines: [
                    "the onboarding process is cancelled and the device activation forgotten",
                    "next          \(NextStepText.command(.onboard))",
                ]
            )
        }
    }
}

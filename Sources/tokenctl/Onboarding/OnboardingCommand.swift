import ArgumentParser
import Foundation
import Logging
import OnboardingCore
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

struct OnboardingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onboarding",
        abstract: "The user activation of this installation: start a process, activate with the OTP.",
        discussion: """
            A user identified by a credentials object (whatever the onboarding server asks for) starts \
            a process and receives an OTP; `onboarding activate --otp CODE` then creates this \
            installation's device activation with it. The process id is kept in the database per \
            onboarding.instance-id, so every step may run in a new process. Servers: onboarding.base-url \
            and onboarding.powerauth (`tokenctl sandbox` prints the sandbox's values).
            Exit codes: 0 ok; 2 wrong OTP, attempts left; 3 process failed or OTP attempts exhausted; \
            65 this instance is already activated; 66 no process running; 75 a process is already \
            running, or the OTP resend period has not passed, or too many processes today; 69 server \
            unreachable or failing (5xx); 76 malformed answer; 78 configuration.
            """,
        subcommands: [
            OnboardingStart.self, OnboardingStatus.self, OnboardingActivate.self, OnboardingCancel.self,
            OnboardingResendOTP.self, OnboardingOTP.self,
        ]
    )
}

extension GlobalOptions {
    func onboardingService() async throws -> OnboardingService {
        try await settings().onboardingService(
            environment: ProcessInfo.processInfo.environment, logger: Logger(label: "tokenctl.onboarding"))
    }
}

struct OnboardingStart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start (or resume) an activation process; the server sends the user an OTP.",
        discussion: #"""
            Example:
              tokenctl onboarding start \
                --credentials '{"email":"alice@example.com","birthDate":"1990-01-31"}'
            """#
    )

    @Option(help: ArgumentHelp("The credentials object, as JSON.", valueName: "json"))
    var credentials: String?

    @Option(
        name: .customLong("credentials-file"),
        help: ArgumentHelp("Read the credentials object from this file (- for standard input).", valueName: "file"),
        completion: .file(extensions: ["json"]))
    var credentialsFile: String?

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (credentials == nil) != (credentialsFile == nil) else {
            throw ValidationError("give exactly one of --credentials JSON and --credentials-file FILE")
        }
    }

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let service = try await global.onboardingService().resolvingServer()
            let started = try await service.start(
                credentials: try OnboardingText.credentials(text: credentials, file: credentialsFile))
            Output.print(json: output.json ? OnboardingText.json(started) : nil, lines: OnboardingText.lines(started))
        }
    }
}

struct OnboardingStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Ask the server where the running process stands (exit 3 when it failed)."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        var failed = false
        try await reportingErrors(json: output.json) {
            let (processID, status) = try await global.onboardingService().status()
            Output.print(
                json: output.json ? OnboardingText.json(processID: processID, status) : nil,
                lines: OnboardingText.lines(processID: processID, status))
            failed = status == .failed
        }
        // A failed process is an answer, not an error: printed like the others, exit 3.
        if failed { throw ExitCode(3) }
    }
}

struct OnboardingActivate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activate",
        abstract: "Activate this installation with the OTP of the running process.",
        discussion: """
            Creates the PowerAuth device activation with the identity attributes processId, otpCode and \
            credentialsType ONBOARDING. The PIN protects its knowledge factor: from --pin-file (mode 0600) \
            or a prompt on a terminal, never an argument. A wrong OTP keeps the process while attempts \
            remain (exit 2); otherwise the process is forgotten (exit 3) unless the server was unreachable.
            """
    )

    @Option(help: ArgumentHelp("The OTP the user received.", valueName: "code"))
    var otp: String

    @Option(help: "A name for this device activation (default: the host name).")
    var name: String?

    @OptionGroup var pin: PINOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard !otp.isEmpty, otp.count <= 64 else { throw ValidationError("--otp must be the code the user received") }
        try LabelOption.check(name, option: "--name")
    }

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let service = try await global.onboardingService().resolvingServer()
            let pinBytes = try PINInput.read(file: pin.pinFile, confirm: true)
            let activated = try await service.activate(otp: otp, name: name, pin: pinBytes)
            Output.print(
                json: output.json ? OnboardingText.json(activated) : nil, lines: OnboardingText.lines(activated))
        }
    }
}

struct OnboardingCancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel the running process on the server (it also removes a device activation made with it).",
        discussion: "The process is forgotten here even when the server cannot be told, unless --no-force."
    )

    @Flag(
        name: .customLong("force"), inversion: .prefixedNo,
        help: "Forget the process here even when the server call fails.")
    var force = true

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let confirmed = try await global.onboardingService().cancel(force: force)
            Output.print(
                json: output.json ? JSONObject(["cancelled": .bool(true), "serverConfirmed": .bool(confirmed)]) : nil,
                lines: [
                    confirmed
                        ? "cancelled"
                        : "cancelled here; the server could not be told, so its process runs on until it expires"
                ]
            )
        }
    }
}

struct OnboardingResendOTP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resend-otp",
        abstract: "Ask the server to send a new OTP (refused within the resend period, exit 75)."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            try await global.onboardingService().resendOTP()
            Output.print(
                json: output.json ? JSONObject(["resent": .bool(true)]) : nil, lines: ["a new OTP is on its way"])
        }
    }
}

struct OnboardingOTP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "otp",
        abstract: "Print the running process's OTP (demo servers and the sandbox only: /api/onboarding/otp/detail)."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let otp = try await global.onboardingService().demoOTP()
            Output.print(json: output.json ? JSONObject(["otpCode": .string(otp)]) : nil, lines: [otp])
        }
    }
}

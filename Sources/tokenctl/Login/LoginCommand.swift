import ArgumentParser
import Foundation
import Logging
import OnboardingCore
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "The PIN app login (MIRACL M-Pin): register an identity, confirm it, set a PIN, log in.",
        discussion: """
            One user per installation, kept in the database per onboarding.instance-id: \
            `register --identity EMAIL` (the platform e-mails a confirmation link), `confirm` (after the \
            link was opened), `set-pin`, then `run` for each login. The PIN never leaves this process and \
            is never stored: it comes from --pin-file (mode 0600) or a prompt on a terminal, never an \
            argument or the environment. Three wrong PINs in a row block the identity and delete its token. \
            Servers: login.backend-url, login.client-id, login.relying-party-url (the sandbox serves all three).
            With onboarding.require-pin-login-within-seconds set, `tokenctl activate` needs a login this recent.
            Exit codes: 0 ok; 2 wrong PIN, attempts left; 3 identity blocked, or the relying party refused \
            the login; 64 PIN unusable; 65 a user exists already, or the step does not fit the user's state, \
            or the platform refused the registration; 66 no user; 69 server unreachable or failing; \
            75 identity not confirmed yet, or a login ticket expired (run it again); 76 malformed answer; \
            78 configuration.
            """,
        subcommands: [
            LoginRegister.self, LoginConfirm.self, LoginResendEmail.self, LoginSetPIN.self, LoginRun.self,
            LoginStatusCommand.self, LoginDelete.self,
        ]
    )
}

extension GlobalOptions {
    func loginService() async throws -> LoginService {
        try await settings().loginService(logger: Logger(label: "tokenctl.login"))
    }
}

struct LoginRegister: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register an identity; the platform e-mails a confirmation link.",
        discussion: """
            Example:
              tokenctl login register --identity alice@example.com
            """
    )

    @Option(help: ArgumentHelp("The user's identity (an e-mail address).", valueName: "email"))
    var identity: String

    @Option(name: .customLong("device-name"), help: "A name for this device (default: the host name).")
    var deviceName: String?

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard !identity.isEmpty, identity.count <= 254, !identity.contains(where: { $0.isWhitespace || $0.isNewline }),
            !SafeText.containsUnsafe(identity)
        else {
            throw ValidationError("--identity must be the user's e-mail address")
        }
        try LabelOption.check(deviceName, option: "--device-name")
    }

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let status = try await global.loginService().register(identity: identity, deviceName: deviceName)
            LoginText.print(
                status, json: output.json, done: "registration started; a confirmation e-mail is on its way")
        }
    }
}

struct LoginConfirm: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "confirm",
        abstract: "Fetch the client secret once the e-mail link was opened (exit 75 before).",
        discussion:
            "The client secret is kept until `tokenctl login set-pin` turns it into the PIN-less token: run that next."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let status = try await global.loginService().confirm()
            LoginText.print(status, json: output.json, done: "identity confirmed")
        }
    }
}

struct LoginResendEmail: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resend-email",
        abstract: "Send the confirmation e-mail again (the earlier link stops working)."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let status = try await global.loginService().resendEmail()
            LoginText.print(status, json: output.json, done: "a new confirmation e-mail is on its way")
        }
    }
}

struct LoginSetPIN: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-pin",
        abstract: "Finish the registration with a PIN (4 to 12 digits); no network call.",
        discussion:
            "The PIN comes from --pin-file (mode 0600) or is asked twice on a terminal. It is not stored: only the token, which is useless without it."
    )

    @OptionGroup var pin: PINOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let service = try await global.loginService()
            var digits = try PINInput.read(file: pin.pinFile, confirm: true, invalid: LoginError.invalidPIN)
            defer { digits.wipe() }
            let status = try await service.setPIN(digits)
            LoginText.print(status, json: output.json, done: "PIN set; the registration is finished")
        }
    }
}

struct LoginRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Log in with the PIN: an authorization code, redeemed by the relying party.",
        discussion:
            "A wrong PIN exits 2 and says how many attempts are left; the third in a row blocks the identity (exit 3) and deletes its token."
    )

    @OptionGroup var pin: PINOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let service = try await global.loginService()
            var digits = try PINInput.read(file: pin.pinFile, invalid: LoginError.invalidPIN)
            defer { digits.wipe() }
            let outcome = try await service.logIn(pin: digits)
            Output.print(json: output.json ? LoginText.json(outcome) : nil, lines: LoginText.lines(outcome))
        }
    }
}

struct LoginStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the login user of this installation (no network call)."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let status = try await global.loginService().status()
            LoginText.print(status, json: output.json, done: nil)
        }
    }
}

struct LoginDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Forget the login user of this installation and its token (exit 66 when there is none)."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            guard try await global.loginService().delete() else { throw LoginError.noUser }
            Output.print(
                json: output.json ? JSONObject(["deleted": .bool(true)]) : nil,
                lines: ["deleted; register again with `tokenctl login register --identity EMAIL`"])
        }
    }
}

extension [UInt8] {
    /// Overwrites the bytes (a PIN) before the array goes away.
    mutating func wipe() {
        for index in indices { self[index] = 0 }
    }
}

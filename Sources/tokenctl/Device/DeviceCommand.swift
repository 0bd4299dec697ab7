import ArgumentParser
import Foundation
import Logging
import OnboardingCore
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "This installation's PowerAuth device activation (onboarding core).",
        discussion: """
            `device activate` creates a PowerAuth 3.2 activation with custom credentials on the server \
            configured under onboarding.powerauth (the sandbox by default; `tokenctl sandbox` prints the \
            values to configure). The PIN protects the knowledge-factor key; it is read from --pin-file \
            (mode 0600) or asked for on a terminal, never taken as an argument. One activation per \
            onboarding.instance-id. Exit codes: 77 not activated, refused or authentication failed; \
            69 server unreachable; 76 unexpected answer; 65 already activated; 64 PIN missing or invalid.
            """,
        subcommands: [
            DeviceActivate.self, DeviceStatus.self, DeviceShow.self, DeviceToken.self, DeviceRequest.self,
            DeviceRemove.self,
        ]
    )
}

struct PINOptions: ParsableArguments {
    @Option(
        name: .customLong("pin-file"),
        help: ArgumentHelp(
            "Read the PIN from this file (mode 0600); without it, a terminal prompt asks.", valueName: "file"),
        completion: .file())
    var pinFile: String?

    /// The PIN when `factor` needs the knowledge factor; possession alone asks for none.
    func pin(for factor: SignatureFactor) throws -> [UInt8]? {
        factor == .possession ? nil : try PINInput.read(file: pinFile)
    }
}

struct SignatureOptions: ParsableArguments {
    @Option(
        name: .customLong("signature-type"),
        help: ArgumentHelp(
            "possession, or possession_knowledge (needs the PIN). Default: possession for `device token`, possession_knowledge for `device remove` (the server needs two factors to remove).",
            valueName: "type"), completion: .list(["possession", "possession_knowledge"]))
    var signatureType: String?

    func validate() throws {
        if let signatureType, Self.parse(signatureType) == nil {
            throw ValidationError("--signature-type must be possession or possession_knowledge")
        }
    }

    /// The factor asked for, else `fallback`.
    func factor(default fallback: SignatureFactor) -> SignatureFactor {
        signatureType.flatMap(Self.parse) ?? fallback
    }

    private static func parse(_ name: String) -> SignatureFactor? {
        SignatureFactor(rawValue: name).flatMap { [.possession, .possessionKnowledge].contains($0) ? $0 : nil }
    }
}

extension GlobalOptions {
    func deviceService() async throws -> DeviceService {
        try await settings().deviceService(
            environment: ProcessInfo.processInfo.environment, logger: Logger(label: "tokenctl.device"))
    }
}

struct DeviceActivate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activate",
        abstract: "Create the device activation with custom identity attributes.",
        discussion: """
            Example:
              tokenctl device activate --attribute username=alice --pin-file pin.txt
            """
    )

    @Option(
        name: .customLong("attribute"),
        help: ArgumentHelp("An identity attribute key=value; repeat for more.", valueName: "key=value"))
    var attributes: [String] = []

    @Option(help: "A name for this device activation.")
    var name: String = "tokenctl"

    @OptionGroup var pin: PINOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard !attributes.isEmpty else { throw ValidationError("give at least one --attribute key=value") }
        for attribute in attributes where !attribute.contains("=") || attribute.hasPrefix("=") {
            throw ValidationError("--attribute must be key=value, got \"\(SafeText.escaped(attribute))\"")
        }
        try LabelOption.check(name, option: "--name")
    }

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let identity = Dictionary(
                attributes.map { attribute -> (String, String) in
                    let parts = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    return (String(parts[0]), String(parts[1]))
                }
            ) { _, last in last }
            let service = try await global.deviceService().resolvingServer()
            let pinBytes = try PINInput.read(file: pin.pinFile, confirm: true)
            let activation = try await service.activate(name: name, identityAttributes: identity, pin: pinBytes)
            if output.json {
                Output.line(DeviceText.json(activation).text)
            } else {
                Output.line("activated \(activation.activationID)")
                Output.line("fingerprint \(activation.fingerprint)")
            }
        }
    }
}

struct DeviceStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Ask the server for the activation's state, failed attempts, counter and flags."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let status = try await global.deviceService().status()
            Output.print(json: output.json ? DeviceText.json(status) : nil, lines: DeviceText.lines(status))
        }
    }
}

struct DeviceShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show the stored activation (no server call; no keys printed).")

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let service = try await global.deviceService()
            guard let activation = try await service.show() else {
                throw PowerAuthClientError.notActivated(instance: service.settings.instanceID)
            }
            Output.print(json: output.json ? DeviceText.json(activation) : nil, lines: DeviceText.lines(activation))
        }
    }
}

struct DeviceToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Create a MAC token (signed request) and store it for `device request --auth token`.")

    @OptionGroup var signature: SignatureOptions
    @OptionGroup var pin: PINOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let factor = signature.factor(default: .possession)
            let service = try await global.deviceService().resolvingServer()
            let pinBytes = try pin.pin(for: factor)
            let token = try await service.createToken(factor: factor, pin: pinBytes)
            if output.json {
                Output.line(
                    JSONObject(["tokenId": .string(token.id), "signatureType": .string(token.factor.rawValue)]).text)
            } else {
                Output.line("token \(token.id) stored (\(token.factor.rawValue))")
            }
        }
    }
}

struct DeviceRequest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send an authenticated POST to the PowerAuth server and print its answer.",
        discussion: """
            --auth possession or possession_knowledge signs the request (X-PowerAuth-Authorization); \
            --auth token uses the stored MAC token (X-PowerAuth-Token).

            Example:
              tokenctl device request /pa/v3/signature/validate \\
                --auth possession_knowledge --pin-file pin.txt
            """
    )

    @Argument(help: "The path, such as /pa/v3/signature/validate.")
    var path: String

    @Option(help: "The JSON body.")
    var body: String = #"{"requestObject":{}}"#

    @Option(
        help: ArgumentHelp("possession, possession_knowledge or token.", valueName: "auth"),
        completion: .list(["possession", "possession_knowledge", "token"]))
    var auth: String = SignatureFactor.possession.rawValue

    @OptionGroup var pin: PINOptions
    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print errors as JSON.")
    var json = false

    func validate() throws {
        guard path.hasPrefix("/") else { throw ValidationError("the path must start with /") }
        guard auth == "token" || ["possession", "possession_knowledge"].contains(auth) else {
            throw ValidationError("--auth must be possession, possession_knowledge or token")
        }
    }

    func run() async throws {
        try await reportingErrors(json: json) {
            let service = try await global.deviceService().resolvingServer()
            let answer: [UInt8]
            if auth == "token" {
                answer = try await service.tokenRequest(path: path, body: Array(body.utf8))
            } else {
                let factor = SignatureFactor(rawValue: auth) ?? .possession
                let pinBytes = try pin.pin(for: factor)
                answer = try await service.signedRequest(
                    path: path, body: Array(body.utf8), factor: factor, pin: pinBytes)
            }
            Output.line(String(decoding: answer, as: UTF8.self))
        }
    }
}

struct DeviceRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract:
            "Remove the activation on the server (signed with the PIN) and forget it here; --local only forgets it.",
        discussion: """
            The server requires two factors to remove an activation, so the PIN is asked (or read \
            with --pin-file); a possession-only signature is refused with 401. A blocked or lost \
            activation cannot sign: use --local, then onboard again.
            """
    )

    @Flag(help: "Only forget the local activation; do not tell the server.")
    var local = false

    @OptionGroup var signature: SignatureOptions
    @OptionGroup var pin: PINOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let factor = signature.factor(default: .possessionKnowledge)
            let service = try await global.deviceService()
            let pinBytes = local ? nil : try pin.pin(for: factor)
            try await service.remove(localOnly: local, factor: factor, pin: pinBytes)
            Output.line(output.json ? JSONObject(["removed": .bool(true)]).text : "removed")
        }
    }
}

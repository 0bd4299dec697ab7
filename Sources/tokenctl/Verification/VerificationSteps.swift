import ArgumentParser
import Foundation
import OnboardingCore
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

struct VerificationDocuments: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "documents",
        abstract: "Choose the identity documents, submit their images, list what the server holds.",
        subcommands: [DocumentsSelect.self, DocumentsSubmit.self, DocumentsStatus.self]
    )
}

struct DocumentsSelect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "select",
        abstract: "Choose the document types to scan (kept here per instance).",
        discussion: """
            Example:
              tokenctl verification documents select ID_CARD PASSPORT
            """
    )

    @Argument(help: ArgumentHelp("ID_CARD, PASSPORT or DRIVING_LICENSE (any case, - or _).", valueName: "type"))
    var types: [String]

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let chosen = try types.map(Self.documentType)
            VerificationText.print(
                try await global.withVerification { try await $0.selectDocumentTypes(chosen) }, json: output.json)
        }
    }

    static func documentType(_ text: String) throws -> DocumentType {
        let name = text.uppercased().replacingOccurrences(of: "-", with: "_")
        guard let type = DocumentType.scannable.first(where: { $0.rawValue == name }) else {
            throw UsageError(
                message: "unknown document type \(SafeText.escaped(text)): use ID_CARD, PASSPORT or DRIVING_LICENSE")
        }
        return type
    }
}

struct DocumentsSubmit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Upload document images (JPEG, at most 1 MiB each), checked whole before anything is sent.",
        discussion: """
            An ID card has a front and a back, a passport and a driving licence a front only. \
            --reupload replaces rejected images: every file given must then replace one the server \
            holds (the server takes all or none); a new image of a side the server already holds \
            needs it too.

            Examples:
              tokenctl verification documents submit --id-card-front front.jpg \\
                --id-card-back back.jpg --passport passport.jpg
              tokenctl verification documents submit --id-card-front front2.jpg --reupload
            """
    )

    @Option(
        name: .customLong("id-card-front"), help: ArgumentHelp("The ID card's front.", valueName: "file"),
        completion: .file())
    var idCardFront: String?
    @Option(
        name: .customLong("id-card-back"), help: ArgumentHelp("The ID card's back.", valueName: "file"),
        completion: .file())
    var idCardBack: String?
    @Option(help: ArgumentHelp("The passport's photo page.", valueName: "file"), completion: .file())
    var passport: String?
    @Option(
        name: .customLong("driving-license"), help: ArgumentHelp("The driving licence's front.", valueName: "file"),
        completion: .file())
    var drivingLicense: String?

    @Flag(help: "Replace rejected images (each file carries the id of the image it replaces).")
    var reupload = false

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    var files: [DocumentImageFile] {
        [
            (idCardFront, DocumentType.idCard, DocumentSide.front), (idCardBack, .idCard, .back),
            (passport, .passport, .front), (drivingLicense, .drivingLicense, .front),
        ]
        .compactMap { path, type, side in path.map { DocumentImageFile(type: type, side: side, path: $0) } }
    }

    func validate() throws {
        guard !files.isEmpty else {
            throw ValidationError(
                "give at least one image: --id-card-front, --id-card-back, --passport or --driving-license")
        }
    }

    func run() async throws {
        try await reportingErrors(json: output.json) {
            VerificationText.print(
                try await global.withVerification { try await $0.submitDocuments(files, reupload: reupload) },
                json: output.json)
        }
    }
}

struct DocumentsStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "List the documents the server holds, with their status and errors.")

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            guard let documents = try await global.withVerification({ try await $0.documents() }) else {
                let state = VerificationState.success
                Output.print(
                    json: output.json
                        ? JSONObject([
                            "documents": .array([]), "state": .string(state.name),
                            "next": .string(VerificationText.next(state)),
                        ]) : nil,
                    lines: [
                        "the verification succeeded; the server lists documents only while a verification is in progress"
                    ]
                )
                return
            }
            Output.print(
                json: output.json ? VerificationText.documentsJSON(documents) : nil,
                lines: VerificationText.documentLines(documents))
        }
    }
}

struct VerificationPresenceCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence-check",
        abstract: "Start the presence check (its session goes to the presence-check app), then say it is done.",
        subcommands: [PresenceCheckStart.self, PresenceCheckDone.self]
    )
}

struct PresenceCheckStart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start a presence check; --json gives the session attributes for the presence-check app."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let attributes = try await global.withVerification { try await $0.presenceCheckInit() }
            let next = NextStepText.command(.finishPresenceCheck)
            // The session attributes are the presence-check app's credentials: JSON only.
            Output.print(
                json: output.json ? Self.json(attributes, next: next) : nil,
                lines: [
                    "state         presenceCheck (started; session attributes: \(attributes.keys.sorted().joined(separator: ", ")), in --json)",
                    "next          \(next)",
                ]
            )
        }
    }
}

extension PresenceCheckStart {
    static func json(_ attributes: [String: String], next: String) -> JSONObject {
        var session = JSONObject([:])
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) { session.append(key, .string(value)) }
        return JSONObject([
            "state": .string(VerificationState.presenceCheck.name), "sessionAttributes": .object(session),
            "next": .string(next),
        ])
    }
}

struct PresenceCheckDone: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done", abstract: "Tell the server the user has done the presence check.")

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            VerificationText.print(
                try await global.withVerification { try await $0.presenceCheckSubmit() }, json: output.json)
        }
    }
}

struct VerificationOTPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "otp",
        abstract: "The OTP that ends the verification: verify it, ask for a new one, or read it from a demo server.",
        subcommands: [OTPVerify.self, OTPResend.self, OTPShow.self]
    )
}

struct OTPVerify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the OTP the user received (exit 2 when wrong with attempts left, 3 when they ran out).",
        discussion: "The code comes from the argument, --otp-file (- for standard input) or a prompt on a terminal."
    )

    @Argument(help: ArgumentHelp("The OTP.", valueName: "code"))
    var code: String?

    @Option(
        name: .customLong("otp-file"),
        help: ArgumentHelp("Read the OTP from this file (- for standard input).", valueName: "file"),
        completion: .file())
    var otpFile: String?

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard code == nil || otpFile == nil else {
            throw ValidationError("give the OTP once: as the argument or with --otp-file")
        }
    }

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let otp = try OTPInput.read(argument: code, file: otpFile)
            VerificationText.print(try await global.withVerification { try await $0.verifyOTP(otp) }, json: output.json)
        }
    }
}

struct OTPResend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resend", abstract: "Ask the server for a new OTP (refused within 30 s of the last, exit 75).")

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            try await global.withVerification { try await $0.resendOTP() }
            Output.print(
                json: output.json ? JSONObject(["resent": .bool(true)]) : nil,
                lines: ["a new OTP is on its way", "next          \(NextStepText.command(.verifyVerificationOTP))"])
        }
    }
}

struct OTPShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the verification OTP (demo servers and the sandbox only: /api/onboarding/otp/detail)."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let otp = try await global.withVerification { try await $0.demoOTP() }
            Output.print(json: output.json ? JSONObject(["otpCode": .string(otp)]) : nil, lines: [otp])
        }
    }
}

/// Where an OTP comes from: the argument, a file, or a prompt on a terminal.
enum OTPInput {
    static func read(argument: String?, file: String?) throws -> String {
        var code: String
        if let argument {
            code = argument
        } else if let file {
            code = String(decoding: try InputFile.read(file, option: "--otp-file"), as: UTF8.self)
        } else {
            guard isatty(STDIN_FILENO) == 1 else {
                throw UsageError(
                    message: "no OTP: give it as the argument or with --otp-file, or run on a terminal to be asked")
            }
            FileHandle.standardError.write(Data("OTP: ".utf8))
            code = readLine() ?? ""
        }
        code = code.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !code.isEmpty, code.count <= 64, code.allSatisfy(\.isASCII), !SafeText.containsUnsafe(code) else {
            throw UsageError(message: "the OTP must be the code the user received")
        }
        return code
    }
}

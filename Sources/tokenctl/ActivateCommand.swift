import ArgumentParser
import ErrorCodes
import Foundation
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import TokenctlConfiguration
import WalletModel

struct ActivateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activate",
        abstract: "Activate the payment token behind a wallet deeplink (or a stream of them with --batch).",
        discussion: """
            Parses the deeplink, finds the pass record for its serialNumber, sends the pass's device \
            account identifier to TMP as tokenUniqueReference and records the attempt in the audit.

            --batch reads one deeplink a line from a file or - (standard input), activates them \
            --concurrency at a time over kept-alive connections, and prints JSON Lines in input order \
            (with "line": N) under --json, else a summary; a progress bar on a terminal. It exits with \
            the most severe code of its lines: 78 > 74 > 69 > 76 > 75 > 77 > 66 > 65 > 3 > 2 > 0. \
            Each JSON line is written as soon as it is in order. SIGINT or SIGTERM stops reading: the \
            requests in flight finish (within tmp.timeout-ms), every finished line and the summary are \
            printed, and the batch exits 130 (SIGINT) or 143 (SIGTERM); a second signal abandons the \
            requests in flight, which the next run closes as UNKNOWN (activation.interrupted).

            Exit codes: 0 APPROVED or already activated, 2 DECLINED, 3 FAILED, 65 bad deeplink, \
            66 no activatable pass (missing, ambiguous, suspended, deactivated), 69 TMP unreachable, \
            timeout or 5xx (outcome may be UNKNOWN), 74 database error, 75 already in progress or \
            database busy, 76 protocol error, 77 user activation required, 78 configuration error.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The deeplink, e.g. 'mybank://activate?serialNumber=SN1234567890'. Quote it.", valueName: "deeplink"))
    var deeplink: String?

    @Option(
        help: ArgumentHelp("Activate one deeplink per line of this file (- for standard input).", valueName: "file"),
        completion: .file())
    var batch: String?

    @Option(help: "Lines in flight at once with --batch.")
    var concurrency: Int = 8

    @Option(
        help: ArgumentHelp(
            "The device label of the pass, when the serial has several (iPhone, Watch).", valueName: "label"))
    var device: String?

    @Flag(
        help:
            "Resolve everything and print what would be sent; send, audit and change nothing (with --batch: for every line, a preview of a replay)."
    )
    var dryRun = false

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        // Neither is checked in run(): the parser reports an unknown option (`activate -rf`)
        // only after validate() passes, and that is the mistake to name.
        guard deeplink == nil || batch == nil else {
            throw ValidationError("give either a deeplink or --batch FILE, not both")
        }
        if batch != nil && device != nil {
            throw ValidationError("--device applies to a single deeplink, not to --batch")
        }
        guard (1...256).contains(concurrency) else {
            throw ValidationError("--concurrency must be between 1 and 256")
        }
    }

    func run() async throws {
        guard deeplink != nil || batch != nil else { throw ValidationError("give either a deeplink or --batch FILE") }
        if let batch {
            try await BatchRun(file: batch, concurrency: concurrency, dryRun: dryRun, output: output, global: global)
                .run()
            return
        }
        try await Self.activate(
            deeplink: deeplink ?? "", device: device, dryRun: dryRun, json: output.json, reveal: output.reveal
        ) {
            try await global.settings()
        }
    }

    /// The deeplink of `tokenctl activate DEEPLINK` and nothing else, the form deeplink
    /// handlers run once per deeplink: it is run without the argument parser, whose
    /// reflection over the command's options is a large part of a cold activation
    /// (Benchmarks/README.md, "Measured shapes"). Any other form is parsed as usual.
    static func plainDeeplink(_ arguments: [String]) -> String? {
        guard arguments.count == 2, arguments[0] == "activate",
            let deeplink = arguments.last, !deeplink.hasPrefix("-"), deeplink != "help"
        else { return nil }
        return deeplink
    }

    /// One activation, printed; exits with the activation's code.
    static func activate(
        deeplink: String, device: String?, dryRun: Bool, json: Bool, reveal: Bool,
        settings: @Sendable () async throws -> Settings
    ) async throws {
        var result: ActivationResult
        do {
            let settings = try await settings()
            result = await Activator(settings: settings, environment: ProcessInfo.processInfo.environment)
                .activate(deeplink: deeplink, device: device, dryRun: dryRun)
        } catch let error as any CodedError {
            result = .notRun(error)
        }
        let exitCode = result.exitStatus.rawValue
        let message = result.error.map(NextStepText.message)
        for warning in result.warnings { Output.error("warning: \(warning)") }
        if json {
            Output.line(result.json(reveal: reveal, message: message).text)
        } else if !Self.stoppedByConfiguration(result) {
            Output.line(ActivationText.line(result, reveal: reveal))
        }
        if let error = result.error, let message { Output.error("\(message) (\(error.code.rawValue))") }
        Output.flush()
        if exitCode != 0 { throw ExitCode(exitCode) }
    }
}

extension ActivateCommand {
    /// A configuration that could not be used stops the run before any activation: the
    /// message on standard error says it all, with no outcome line beside it.
    static func stoppedByConfiguration(_ result: ActivationResult) -> Bool {
        result.serialNumber == nil && result.error?.code.rawValue.hasPrefix("config.") == true
    }
}

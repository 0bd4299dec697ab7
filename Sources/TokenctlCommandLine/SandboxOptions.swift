import ArgumentParser
import TransparencyLog
import WalletModel

/// The sandbox's options, of ``SandboxCommand`` in both executables: `tokenctl` declares them
/// for its help, completions and manual, and `tokenctl-sandbox` reads them.
public struct SandboxOptions: ParsableArguments, Sendable {
    public init() {}

    @Option(parsing: .unconditional, help: "Port to listen on (0 to 65535); 0 picks a free one.")
    public var port: Int = 8787

    @Option(
        name: .customLong("slow-delay-ms"),
        help: "How long SBXSLOW references wait before answering; the default outlasts the default tmp.timeout-ms.")
    public var slowDelayMilliseconds: Int = 20_000

    @Option(
        name: .customLong("powerauth-dir"),
        help: ArgumentHelp(
            "Keep the PowerAuth server identity in this directory (created 0700): loaded when present, generated otherwise. Default: a new temporary directory, so a fresh identity.",
            valueName: "dir"),
        completion: .directory
    )
    public var powerAuthDirectory: String?

    @Flag(
        name: .customLong("skip-verification"),
        help:
            "Finish onboarding processes at activation, so devices carry no VERIFICATION_PENDING flag (quick manual tries only)."
    )
    public var skipVerification = false

    @Option(
        name: .customLong("verification-step-seconds"),
        help: ArgumentHelp(
            "Seconds between identity verification's background steps (0: at once).", valueName: "seconds"))
    public var verificationStepSeconds: Double = 3

    @Flag(name: .customLong("no-presence-check"), help: "Identity verification without a presence check.")
    public var noPresenceCheck = false

    @Option(
        name: .customLong("witness-log"),
        help: ArgumentHelp(
            "A log's verifier key (NAME+HASH+KEY, as tokenctl audit key generate prints it) the witness cosigns checkpoints for; repeat for more logs.",
            valueName: "vkey")
    )
    public var witnessLogs: [String] = []

    public func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard slowDelayMilliseconds >= 0 else { throw ValidationError("--slow-delay-ms must not be negative") }
        guard (0...3_600).contains(verificationStepSeconds) else {
            throw ValidationError("--verification-step-seconds must be between 0 and 3600")
        }
        for key in witnessLogs where (try? NoteVerifier(verifierKey: key)) == nil {
            throw ValidationError(
                "--witness-log \(key.prefix(80)) is not a log's verifier key (NAME+HASH+KEY with an Ed25519 key, as tokenctl audit key generate prints it)"
            )
        }
    }
}

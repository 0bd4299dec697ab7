import ArgumentParser
import TextFormats
import TokenctlCommandLine
import TokenctlConfiguration
import TransparencyLog
import WalletModel

struct AuditKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "The key that signs the audit log's checkpoints.",
        subcommands: [AuditKeyGenerate.self]
    )
}

struct AuditKeyGenerate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Make a signing key for the audit log's checkpoints; print its verifier key.",
        discussion: """
            Writes a signed-note private key (golang.org/x/mod/sumdb/note's format, Ed25519; its name \
            is the origin) to a new file, owner-only, and prints the verifier key that auditors and \
            witnesses check checkpoints with. Then set audit.origin to the origin and \
            audit.signing-key-file to the file. An existing file is never written over.
            """
    )

    @Option(
        help: ArgumentHelp(
            "The log's name, as audit.origin will say it (such as bank.example/tokenctl-audit; no spaces, no '+').",
            valueName: "origin"))
    var origin: String

    @Option(help: ArgumentHelp("The new key file (made 0600).", valueName: "file"), completion: .file())
    var out: String

    @Flag(help: "Print the result as JSON.")
    var json = false
    /// Taken as every command takes them (a script passes them to every command); unused.
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard AuditSettings.isValidOrigin(origin) else {
            throw ValidationError(
                "--origin must be a log's name of at most 255 bytes, without spaces, '+', control or direction-changing characters, such as bank.example/tokenctl-audit"
            )
        }
        guard out != "-" else {
            throw ValidationError("--out must name a file: a private key is never written to standard output")
        }
    }

    func run() async throws {
        try await reportingErrors(json: json) {
            let signer = try NoteSigner.generate(name: origin)
            try OutputFile.write(
                Array((signer.signerKey + "\n").utf8), to: out, option: "--out", mode: 0o600, exclusive: true)
            let verifierKey = signer.verifier.verifierKey
            if json {
                Output.line(
                    JSONObject(["origin": .string(origin), "verifierKey": .string(verifierKey), "file": .string(out)])
                        .text)
            } else {
                Output.line(verifierKey)
                Output.error(
                    "wrote the signing key to \(SafeText.escaped(out)) (0600); set audit.origin to \(origin) and audit.signing-key-file to that file, and give auditors the verifier key above"
                )
            }
        }
    }
}

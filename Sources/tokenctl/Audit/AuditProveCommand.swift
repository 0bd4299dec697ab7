import ArgumentParser
import Foundation
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import TransparencyLog
import WalletModel

struct AuditProve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prove",
        abstract: "Prove that an audit entry's rows are in a signed checkpoint's tree (C2SP tlog-proof).",
        discussion: """
            Prints the tlog-proof (c2sp.org/tlog-proof@v1: the row's leaf index, its inclusion proof, \
            then the signed checkpoint) of one row of the entry: the finished row, or the started one \
            with --row started. The checkpoint is the newest stored one, or the one of --size rows; it \
            must hold the row (sign one with audit checkpoint). The leaf data (the row's hashed text) \
            holds identifiers whole: it is written only with --reveal. --json gives every row.
            """
    )

    enum Row: String, ExpressibleByArgument, CaseIterable { case started, finished }

    @Argument(help: "The audit id (auditId in activate's output).")
    var entry: Int64

    @Option(help: ArgumentHelp("The stored checkpoint's size (default: the newest).", valueName: "rows"))
    var size: Int64?

    @Option(
        help: "Which of the entry's rows: started or finished (default: the last one, finished when the attempt ended)."
    )
    var row: Row?

    @Option(
        help: ArgumentHelp("Write the tlog-proof to this file instead of standard output.", valueName: "file"),
        completion: .file())
    var out: String?

    @Option(
        name: .customLong("leaf-data"),
        help: ArgumentHelp("Also write the row's leaf data to this file (needs --reveal).", valueName: "file"),
        completion: .file())
    var leafData: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(help: "Give the leaf data, which holds identifiers whole.")
    var reveal = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if leafData != nil, !reveal {
            throw ValidationError("--leaf-data needs --reveal: the leaf data holds identifiers whole")
        }
        if let size, size < 1 { throw ValidationError("--size must be 1 or more") }
    }

    func run() async throws {
        try await reportingErrors(json: json) {
            // The leaf data's file is made first: one that cannot be is named before any proof is printed.
            if let leafData { try OutputFile.checkWritable(leafData, option: "--leaf-data") }
            let proof = try await TransparencyLog(settings: try await global.readingSettings()).prove(
                entry: entry, size: size, row: row.map { $0 == .started ? 0 : 1 })
            if json {
                let rows: [JSONObject] = proof.rows.map { row in
                    JSONObject([
                        "index": .int(Int(row.index)),
                        "leafData": reveal ? .string(Data(row.leafData).base64EncodedString()) : .null,
                        "leafHash": .string(Data(row.leafHash).base64EncodedString()),
                        "proof": .array(row.proof.map { .string(Data($0).base64EncodedString()) }),
                    ])
                }
                Output.line(
                    JSONObject([
                        "entry": .int(Int(entry)), "rows": .array(rows.map { .object($0) }),
                        "checkpoint": .string(proof.checkpoint.note),
                    ]).text)
                return
            }
            let chosen = proof.rows.count - 1
            let text = proof.tlogProofs[chosen].text
            if let out {
                try OutputFile.write(Array(text.utf8), to: out, option: "--out")
            } else {
                Output.write(text)
            }
            if let leafData {
                try OutputFile.write(proof.rows[chosen].leafData, to: leafData, option: "--leaf-data", mode: 0o600)
            }
        }
    }
}

struct AuditConsistency: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consistency",
        abstract: "Prove that the audit log extends an older checkpoint: the proof's hashes, base64, one a line.",
        discussion: """
            From the checkpoint in --from (a signed note as audit checkpoint printed it) to the newest \
            stored checkpoint, or the one of --to rows (RFC 9162 §2.1.4). The older checkpoint's \
            signature is checked first, with --verifier-key or else the key of audit.signing-key-file; \
            a file that is no signed checkpoint is exit 64. When this log's tree of the old size has \
            another head, when the audit has fewer rows than the old checkpoint (a cut log), or when \
            the old checkpoint is of another origin or key: exit 65, audit.inconsistent.
            """
    )

    @Option(
        help: ArgumentHelp("The older checkpoint's file ('-' for standard input).", valueName: "file"),
        completion: .file())
    var from: String

    @Option(
        name: .customLong("verifier-key"),
        help: ArgumentHelp(
            "The log's verifier key that signed the older checkpoint (default: the key of audit.signing-key-file).",
            valueName: "key"))
    var verifierKey: String?

    @Option(help: ArgumentHelp("The newer stored checkpoint's size (default: the newest).", valueName: "rows"))
    var to: Int64?

    @Flag(help: "Print the result as JSON.")
    var json = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: json) {
            let settings = try await global.readingSettings()
            let verifier: NoteVerifier
            if let verifierKey {
                guard let given = try? NoteVerifier(verifierKey: verifierKey) else {
                    throw UsageError(
                        message:
                            "--verifier-key is not a signed-note verifier key (NAME+HASH+KEY, as audit key generate prints it)"
                    )
                }
                verifier = given
            } else if settings.audit.signingKeyFile != nil, settings.audit.origin != nil {
                verifier = try settings.audit.signer().signer.verifier
            } else {
                throw UsageError(
                    message:
                        "the older checkpoint's signature is checked with the log's key: give --verifier-key (as audit key generate printed it)"
                )
            }
            let note = try InputFile.read(from, option: "--from")
            let old = try TransparencyLog.open(
                Array(note), verifier: verifier, what: "--from \(SafeText.escaped(from))")
            let log = TransparencyLog(settings: settings)
            let (checkpoint, proof) = try await log.consistency(
                from: Int64(old.size), to: to, oldRoot: old.rootHash, oldOrigin: old.origin)
            if json {
                Output.line(
                    JSONObject([
                        "from": .int(Int(old.size)), "to": .int(Int(checkpoint.size)),
                        "proof": .array(proof.map { .string(Data($0).base64EncodedString()) }),
                        "checkpoint": .string(checkpoint.note),
                    ]).text)
            } else {
                for hash in proof { Output.line(Data(hash).base64EncodedString()) }
            }
        }
    }
}

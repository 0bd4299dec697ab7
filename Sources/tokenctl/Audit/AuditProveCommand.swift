import ArgumentParser
import CommandLine
import Foundation
import TokenActivation
import TokenctlApp
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

    @Option(help: "Which of the entry's rows: started or finished (default: the last one, finished when the attempt ended).")
    var row: Row?

    @Option(help: ArgumentHelp("Write the tlog-proof to this file instead of standard output.", valueName: "file"), completion: .file())
    var out: String?

    @Option(name: .customLong("leaf-data"), help: ArgumentHelp("Also write the row's leaf data to this file (needs --reveal).", valueName: "file"), completion: .file())
    var leafData: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(help: "Give the leaf data, which holds identifiers whole.")
    var reveal = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if leafData != nil, !reveal { throw ValidationError("--leaf-data needs --reveal: the leaf data holds identifiers whole") }
        if let size, size < 1 { throw ValidationError("--size must be 1 or more") }
    }

    func run() async throws {
        try await reportingErrors(json: json) {
            let proof = try TransparencyLog(settings: try await global.readingSettings()).prove(entry: entry, size: size)
            if json {
                let rows: [JSONObject] = proof.rows.map { row in
                    JSONObject([
                        "index": .int(Int(row.index)),
                        "leafData": reveal ? .string(Data(row.leafData).base64EncodedString()) : .null,
                        "leafHash": .string(Data(row.leafHash).base64EncodedString()),
                        "proof": .array(row.proof.map { .string(Data($0).base64EncodedString()) }),
                    ])
                }
                Output.line(JSONObject(["entry": .int(Int(entry)), "rows": .array(rows.map { .object($0) }), "checkpoint": .string(proof.checkpoint.note)]).text)
                return
            }
            let chosen = row.map { $0 == .started ? 0 : 1 } ?? proof.rows.count - 1
            guard chosen < proof.rows.count else {
                throw AuditError(code: .auditNotFound, message: "audit entry \(entry) has no finished row yet (the attempt has not ended); prove --row started")
            }
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
            stored checkpoint, or the one of --to rows (RFC 9162 §2.1.4). When this log's tree of the \
            old size has another head, the old checkpoint is not of this log as it is now: exit 65, \
            audit.inconsistent.
            """
    )

    @Option(help: ArgumentHelp("The older checkpoint's file ('-' for standard input).", valueName: "file"), completion: .file())
    var from: String

    @Option(help: ArgumentHelp("The newer stored checkpoint's size (default: the newest).", valueName: "rows"))
    var to: Int64?

    @Flag(help: "Print the result as JSON.")
    var json = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: json) {
            let text = String(decoding: try InputFile.read(from, option: "--from"), as: UTF8.self)
            guard let old = Checkpoint(text: (text.components(separatedBy: "\n\n").first ?? "") + "\n") else {
                throw UsageError(message: "--from \(SafeText.escaped(from)) holds no checkpoint (origin, size, root hash)")
            }
            let log = TransparencyLog(settings: try await global.readingSettings())
            let (checkpoint, proof) = try log.consistency(from: Int64(old.size), to: to, oldRoot: old.rootHash)
            if json {
                Output.line(JSONObject([
                    "from": .int(Int(old.size)), "to": .int(Int(checkpoint.size)),
                    "proof": .array(proof.map { .string(Data($0).base64EncodedString()) }), "checkpoint": .string(checkpoint.note),
                ]).text)
            } else {
                for hash in proof { Output.line(Data(hash).base64EncodedString()) }
            }
        }
    }
}

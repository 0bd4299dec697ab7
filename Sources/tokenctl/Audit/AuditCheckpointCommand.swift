import ArgumentParser
import CommandLine
import Foundation
import TokenActivation
import TokenctlApp
import WalletModel

struct AuditCheckpoint: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkpoint",
        abstract: "Sign the audit log's tree head as a checkpoint, store it and print it.",
        discussion: """
            The checkpoint is a C2SP tlog-checkpoint in a signed note: audit.origin, the tree size \
            (every audit row), the root hash (RFC 9162's Merkle tree over the rows), signed with \
            audit.signing-key-file. Stored checkpoints are append-only; signing again at the same \
            size prints the stored one. An auditor who keeps it can later check that the log still \
            extends it (audit verify --checkpoint, audit consistency).
            """
    )

    @Flag(help: "Print the result as JSON.")
    var json = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: json) {
            let settings = try await global.settings()
            let (origin, signer) = try settings.audit.signer()
            let signed = try TransparencyLog(settings: settings).checkpoint(origin: origin, signer: signer)
            if json {
                Output.line(JSONObject([
                    "origin": .string(signed.checkpoint.origin), "size": .int(Int(signed.checkpoint.size)),
                    "rootHash": .string(Data(signed.checkpoint.rootHash).base64EncodedString()),
                    "new": .bool(signed.isNew), "checkpoint": .string(signed.note),
                ]).text)
            } else {
                Output.write(signed.note)
            }
        }
    }
}

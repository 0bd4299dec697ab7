import ArgumentParser
import ErrorCodes
import Foundation
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
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

            With --publish, the checkpoint also goes to every witness of audit.witnesses (C2SP \
            tlog-witness add-checkpoint, with the consistency proof from the size the witness last \
            cosigned); each cosignature is checked with the witness's key, stored, and printed \
            after the log's signature. A witness that refuses is exit 65 audit.witnessRefused, one \
            that cannot be reached 69 audit.witnessUnreachable, both naming its URL; the \
            cosignatures of the others are kept.
            """
    )

    @Flag(help: "Also send the checkpoint to the witnesses of audit.witnesses and print it with their cosignatures.")
    var publish = false
    @Flag(help: "Print the result as JSON.")
    var json = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: json) {
            let settings = try await global.settings()
            let (origin, signer) = try settings.audit.signer()
            let publisher = try publish ? settings.audit.witnessPublisher() : nil
            if publish, publisher == nil {
                throw AuditError(
                    code: .auditNotConfigured,
                    message:
                        "--publish sends the checkpoint to the witnesses of audit.witnesses, and none is configured: add {\"url\": …, \"verifier-key\": …} for each"
                )
            }
            let log = TransparencyLog(settings: settings)
            let signed = try await log.checkpoint(origin: origin, signer: signer)
            var note = signed.note
            var outcomes: [WitnessPublisher.Outcome] = []
            var stored: Set<String> = []
            if let publisher {
                let published = try await log.publish(size: Int64(signed.checkpoint.size), with: publisher)
                (note, outcomes, stored) = (published.checkpoint.note, published.outcomes, published.stored)
            }
            if json {
                var object = JSONObject([
                    "origin": .string(signed.checkpoint.origin), "size": .int(Int(signed.checkpoint.size)),
                    "rootHash": .string(Data(signed.checkpoint.rootHash).base64EncodedString()),
                    "new": .bool(signed.isNew), "checkpoint": .string(note),
                ])
                if publisher != nil {
                    object.append("witnesses", .array(outcomes.map { Self.json($0, stored: stored) }))
                }
                Output.line(object.text)
            } else {
                Output.write(note)
            }
            // Every refusal on standard error; the exit status is the first one's (the JSON
            // object above already names each witness's outcome).
            let failures = outcomes.compactMap { outcome -> AuditError? in
                if case .failure(let error) = outcome.result { error } else { nil }
            }
            guard let first = failures.first else { return }
            Output.flush()
            for failure in failures { Output.error("\(failure.message) (\(failure.code.rawValue))") }
            throw ExitCode(first.exitStatus.rawValue)
        }
    }

    /// `cosigned` is true only for a witness that answered with a cosignature in this run;
    /// `stored` says whether a cosignature of it on this checkpoint is stored (from this run
    /// or an earlier one).
    static func json(_ outcome: WitnessPublisher.Outcome, stored: Set<String>) -> JSONObject.Value {
        let isStored = JSONObject.Value.bool(stored.contains(outcome.witness.verifier.verifierKey))
        return switch outcome.result {
        case .success(let cosignature):
            .object(
                JSONObject([
                    "url": .string(outcome.witness.url), "cosigned": .bool(true), "stored": isStored,
                    "size": .int(Int(cosignature.size)), "time": .int(Int(cosignature.time)),
                ]))
        case .failure(let error):
            .object(
                JSONObject([
                    "url": .string(outcome.witness.url), "cosigned": .bool(false), "stored": isStored,
                    "code": .string(error.code.rawValue), "message": .string(error.message),
                ]))
        }
    }
}

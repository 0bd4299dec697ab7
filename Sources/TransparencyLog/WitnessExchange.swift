import Foundation

/// The log's side of C2SP tlog-witness's `add-checkpoint`: the request body it sends, and
/// the witness's answer read and checked.
public enum WitnessExchange {
    /// Appended to a witness's submission prefix.
    public static let path = "/add-checkpoint"
    /// The most proof lines a request may carry.
    public static let maximumProofLines = 63

    /// `old SIZE`, the consistency proof's hashes in base64 one a line, a blank line, then the
    /// signed checkpoint.
    public static func request(oldSize: UInt64, proof: [[UInt8]], note: String) -> [UInt8] {
        Array(("old \(oldSize)\n" + proof.map { Data($0).base64EncodedString() + "\n" }.joined() + "\n" + note).utf8)
    }

    /// The reason of a 200 whose cosignatures are all by other keys than the configured one.
    public static let otherKeyReason = "no cosignature in the answer verifies with the configured key"

    /// What a witness answered.
    public enum Answer: Equatable, Sendable {
        /// 200 with a cosignature by the witness's key on the checkpoint, made at `time`.
        case cosigned(SignedNote.Signature, time: UInt64)
        /// 409: the witness holds the checkpoint of `size` rows (a size other than the old
        /// size sent, or the same size with another root hash).
        case conflict(size: UInt64)
        /// Any other answer, or a 200 or 409 whose body is not what the specification says.
        case refused(status: Int, reason: String)
    }

    /// Reads a witness's answer to a request for `checkpoint` (the note's text, without its
    /// signatures); a cosignature by another key is ignored, as the specification says.
    public static func answer(status: Int, body: [UInt8], checkpoint: String, witness: Cosignature.Verifier) -> Answer {
        switch status {
        case 200:
            guard body.last == 0x0A else { return .refused(status: 200, reason: "the answer is not signature lines") }
            var found: Answer?
            for line in body.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false) {
                guard let (signature, _) = try? SignedNote.signatureLine(line) else {
                    return .refused(status: 200, reason: "the answer is not signature lines")
                }
                if found == nil, let time = witness.time(of: signature, on: checkpoint) {
                    found = .cosigned(signature, time: time)
                }
            }
            return found
                ?? .refused(status: 200, reason: otherKeyReason + " \(witness.name)+\(NoteKey.hex(witness.keyHash))")
        case 409:
            guard body.last == 0x0A, let size = PlainDecimal.value(String(decoding: body.dropLast(), as: UTF8.self))
            else { return .refused(status: 409, reason: "the conflict does not name a tree size") }
            return .conflict(size: size)
        case 400: return .refused(status: 400, reason: "the witness found the request malformed")
        case 403: return .refused(status: 403, reason: "the witness trusts no key that signed the checkpoint")
        case 404: return .refused(status: 404, reason: "the witness does not know this log's origin")
        case 422:
            return .refused(
                status: 422,
                reason:
                    "the witness does not accept the consistency proof: the log is not an extension of what it cosigned before"
            )
        default: return .refused(status: status, reason: "the witness answered \(status)")
        }
    }
}

import Crypto
import Foundation

/// An `add-checkpoint` request body as the witness reads it (C2SP tlog-witness): the old
/// size, the proof, and the checkpoint note with its signature lines.
struct WitnessSubmission {
    let oldSize: UInt64
    let proof: [[UInt8]]
    /// The note's text: the checkpoint's lines, each ending in a newline.
    let text: [UInt8]
    let origin: String
    let size: UInt64
    let root: [UInt8]
    /// Each signature line's name and decoded bytes (key hash ‖ signature).
    let signatures: [(name: String, bytes: [UInt8])]

    /// nil when the body is not such a request (the witness answers 400).
    init?(_ body: [UInt8]) {
        let lines = body.split(separator: 0x0A, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard String(validating: body, as: UTF8.self) != nil, body.last == 0x0A, let blank = lines.firstIndex(of: ""),
            let first = lines.first, first.hasPrefix("old "), let old = Self.decimal(first.dropFirst(4)),
            blank - 1 <= 63
        else { return nil }
        var proof: [[UInt8]] = []
        for line in lines[1..<blank] {
            guard let hash = Data(base64Encoded: line), hash.count == 32 else { return nil }
            proof.append(Array(hash))
        }
        // The note: text lines up to its blank line, then signature lines, then the final "".
        let note = Array(lines[(blank + 1)...].dropLast())
        guard let noteBlank = note.firstIndex(of: ""), noteBlank >= 3, noteBlank < note.count - 1,
            let size = Self.decimal(Substring(note[1])), let root = Data(base64Encoded: note[2]), root.count == 32,
            !note[0].isEmpty
        else { return nil }
        var signatures: [(String, [UInt8])] = []
        for line in note[(noteBlank + 1)...] {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "—", let bytes = Data(base64Encoded: String(parts[2])), bytes.count > 4
            else { return nil }
            signatures.append((String(parts[1]), Array(bytes)))
        }
        oldSize = old
        self.proof = proof
        text = Array(note[..<noteBlank].map { $0 + "\n" }.joined().utf8)
        origin = note[0]
        self.size = size
        self.root = Array(root)
        self.signatures = signatures
    }

    private static func decimal(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), text == "0" || !text.hasPrefix("0")
        else { return nil }
        return UInt64(text)
    }
}

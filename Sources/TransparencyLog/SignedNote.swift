import Foundation

/// A signed note (C2SP signed-note, golang.org/x/mod/sumdb/note): UTF-8 text ending in a
/// newline, a blank line, then one line per signature, `— NAME BASE64(key hash ‖ signature)`.
/// Opening checks the bytes as the Go package does, so that what one refuses the other does.
public struct SignedNote: Equatable, Sendable {
    public struct Signature: Equatable, Sendable {
        public let name: String
        public let keyHash: UInt32
        /// The key hash and the signature, in base64, as the line carries them.
        public let base64: String

        public init(name: String, keyHash: UInt32, base64: String) {
            self.name = name
            self.keyHash = keyHash
            self.base64 = base64
        }
    }

    /// The signed text, with its final newline.
    public let text: String
    /// The signatures a known key verified.
    public var signatures: [Signature] = []
    /// The signatures of keys not known here, kept as they were.
    public var unverified: [Signature] = []

    public init(text: String, signatures: [Signature] = [], unverified: [Signature] = []) {
        self.text = text
        self.signatures = signatures
        self.unverified = unverified
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The bytes are not a signed note (the Go package's "malformed note").
        case malformed
        /// Two known keys have this name and hash.
        case ambiguousKey(name: String, keyHash: UInt32)
        /// A known key's signature does not verify.
        case invalidSignature(name: String, keyHash: UInt32)
        /// No signature is by a known key; the note as read is kept.
        case noVerifiableSignature(SignedNote)

        public var description: String {
            switch self {
            case .malformed: "malformed note"
            case .ambiguousKey(let name, let hash): "ambiguous key \(name)+\(NoteKey.hex(hash))"
            case .invalidSignature(let name, let hash): "invalid signature for key \(name)+\(NoteKey.hex(hash))"
            case .noVerifiableSignature: "note has no verifiable signatures"
            }
        }
    }

    static let signaturePrefix = Array("— ".utf8)
    /// More signature lines than this and the note is refused, unread.
    static let maximumSignatures = 100

    /// The note's bytes: `text`, signed by each of `signers`, after the signatures already
    /// held that none of `signers` replaces.
    public static func sign(text: String, by signers: [NoteSigner], keeping existing: [Signature] = []) throws -> String
    {
        guard text.hasSuffix("\n") else { throw Failure.malformed }
        let message = Array(text.utf8)
        var lines: [String] = []
        for old in existing where !signers.contains(where: { $0.name == old.name && $0.keyHash == old.keyHash }) {
            guard NoteKey.isValidName(old.name), let raw = Data(base64Encoded: old.base64), raw.count >= 4,
                raw.prefix(4).reduce(0, { $0 << 8 | UInt32($1) }) == old.keyHash
            else { throw Failure.malformed }
            lines.append("— \(old.name) \(old.base64)\n")
        }
        for signer in signers {
            let hash = withUnsafeBytes(of: signer.keyHash.bigEndian) { Array($0) }
            lines.append("— \(signer.name) " + Data(hash + (try signer.sign(message))).base64EncodedString() + "\n")
        }
        return text + "\n" + lines.joined()
    }

    /// Reads `bytes` and checks every signature by a key among `verifiers`.
    public static func open(_ bytes: [UInt8], verifiers: [NoteVerifier]) throws(Failure) -> SignedNote {
        guard let all = String(validating: bytes, as: UTF8.self),
            !all.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" })
        else { throw .malformed }
        // The text ends at the last blank line; the signature block is not empty and ends
        // in a newline.
        guard let split = lastBlankLine(bytes) else { throw .malformed }
        let textBytes = Array(bytes[...split]), block = bytes[(split + 2)...]
        guard block.last == 0x0A else { throw .malformed }
        var note = SignedNote(text: String(decoding: textBytes, as: UTF8.self))
        var seen: Set<String> = [], seenUnverified: Set<String> = []
        let lines = block.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false)
        guard lines.count <= maximumSignatures else { throw .malformed }
        for line in lines {
            let (signature, raw) = try signatureLine(line)
            let (name, hash) = (signature.name, signature.keyHash)
            let rest = "\(name) \(signature.base64)"
            let matching = verifiers.filter { $0.name == name && $0.keyHash == hash }
            guard let verifier = matching.first else {
                if seenUnverified.insert(rest).inserted { note.unverified.append(signature) }
                continue
            }
            guard matching.count == 1 else { throw .ambiguousKey(name: name, keyHash: hash) }
            // Every line by a known key is verified, a repeated one too (as the Go package
            // does); only then are repeats dropped.
            guard verifier.verify(textBytes, signature: Array(raw.dropFirst(4))) else {
                throw .invalidSignature(name: name, keyHash: hash)
            }
            guard seen.insert("\(name)+\(hash)").inserted else { continue }
            note.signatures.append(signature)
        }
        guard !note.signatures.isEmpty else { throw .noVerifiableSignature(note) }
        return note
    }

    /// One signature line's fields (without its newline) and its decoded bytes (key hash ‖
    /// signature); `.malformed` unless it is `— NAME BASE64` with at least five bytes.
    public static func signatureLine(_ line: ArraySlice<UInt8>) throws(Failure) -> (Signature, Data) {
        guard line.starts(with: signaturePrefix) else { throw .malformed }
        let restBytes = line.dropFirst(signaturePrefix.count)
        // Split at the first space byte (not Character: a space and a combining mark
        // after it are one Character, still a space in the format).
        let space = restBytes.firstIndex(of: 0x20) ?? restBytes.endIndex
        let name = String(decoding: restBytes[..<space], as: UTF8.self)
        let base64 = space == restBytes.endIndex ? "" : String(decoding: restBytes[(space + 1)...], as: UTF8.self)
        guard NoteKey.isValidName(name), !base64.isEmpty, let raw = Data(base64Encoded: base64), raw.count >= 5 else {
            throw .malformed
        }
        return (Signature(name: name, keyHash: raw.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }, base64: base64), raw)
    }

    /// The index of the first newline of the last "\n\n".
    private static func lastBlankLine(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        return stride(from: bytes.count - 2, through: 0, by: -1).first { bytes[$0] == 0x0A && bytes[$0 + 1] == 0x0A }
    }
}

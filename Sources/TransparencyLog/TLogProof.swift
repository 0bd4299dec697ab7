import Foundation

/// An offline-verifiable proof that an entry is in a log (C2SP tlog-proof): the header
/// line, optional extra data, the entry's index, its inclusion proof (one base64 hash per
/// line), a blank line, then the log's signed checkpoint verbatim.
public struct TLogProof: Equatable, Sendable {
    public static let header = "c2sp.org/tlog-proof@v1"

    public var extra: [UInt8]?
    public var index: UInt64
    public var proof: [[UInt8]]
    /// The signed checkpoint, as the log issued it (with cosignatures, if any).
    public var signedCheckpoint: String

    public init(extra: [UInt8]? = nil, index: UInt64, proof: [[UInt8]], signedCheckpoint: String) {
        self.extra = extra
        self.index = index
        self.proof = proof
        self.signedCheckpoint = signedCheckpoint
    }

    public var text: String {
        var lines = [Self.header]
        if let extra { lines.append("extra " + Data(extra).base64EncodedString()) }
        lines.append("index \(index)")
        lines += proof.map { Data($0).base64EncodedString() }
        return lines.map { $0 + "\n" }.joined() + "\n" + signedCheckpoint
    }

    /// Why a proof file is refused.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public init(text: String) throws(Invalid) {
        guard let blank = text.range(of: "\n\n") else { throw Invalid("no blank line before the checkpoint") }
        let head = text[..<blank.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        signedCheckpoint = String(text[blank.upperBound...])
        guard !signedCheckpoint.isEmpty else { throw Invalid("no checkpoint after the blank line") }
        guard head.first == Self.header else { throw Invalid("the first line is not \(Self.header)") }
        var rest = head.dropFirst()
        if let line = rest.first, line.hasPrefix("extra ") {
            guard let bytes = Base64.decode(line.dropFirst(6)) else { throw Invalid("the extra data is not base64") }
            extra = Array(bytes)
            rest = rest.dropFirst()
        }
        guard let line = rest.first, line.hasPrefix("index ") else { throw Invalid("no index line") }
        guard let index = PlainDecimal.value(line.dropFirst(6)) else {
            throw Invalid("the index is not a decimal without leading zeros")
        }
        self.index = index
        proof = []
        for (number, line) in rest.dropFirst().enumerated() {
            guard let hash = Base64.decode(line), hash.count == MerkleHash.size else {
                throw Invalid("proof line \(number + 1) is not a base64 SHA-256 hash")
            }
            proof.append(Array(hash))
        }
    }

    /// Checks the proof for an entry whose leaf hash is `leafHash`: the checkpoint is signed
    /// by `log` for the log's own origin, and the entry is at `index` in its tree. Returns
    /// the checkpoint.
    public func verify(leafHash: [UInt8], log: NoteVerifier) throws -> (checkpoint: Checkpoint, note: SignedNote) {
        let note = try SignedNote.open(Array(signedCheckpoint.utf8), verifiers: [log])
        guard let checkpoint = Checkpoint(text: note.text) else { throw Invalid("the signed note is not a checkpoint") }
        guard checkpoint.origin == log.name else {
            throw Invalid("the checkpoint's origin \(checkpoint.origin) is not the log's key name \(log.name)")
        }
        try MerkleProof.verifyInclusion(
            index: index, size: checkpoint.size, leafHash: leafHash, proof: proof, root: checkpoint.rootHash)
        return (checkpoint, note)
    }
}

import Foundation

/// A transparency log's checkpoint (C2SP tlog-checkpoint): the body of a signed note, the
/// log's origin, its size in decimal and its root hash in base64, one per line, then any
/// extension lines.
public struct Checkpoint: Equatable, Sendable {
    public let origin: String
    public let size: UInt64
    public let rootHash: [UInt8]
    public let extensions: [String]

    public init(origin: String, size: UInt64, rootHash: [UInt8], extensions: [String] = []) {
        self.origin = origin
        self.size = size
        self.rootHash = rootHash
        self.extensions = extensions
    }

    /// The note text: every line ends in a newline.
    public var text: String {
        ([origin, String(size), Data(rootHash).base64EncodedString()] + extensions).map { $0 + "\n" }.joined()
    }

    /// Reads a note's text as a checkpoint; nil when it is not one (an empty origin, a size
    /// with a sign or leading zeros, a root that is not 32 bytes of base64, an empty line).
    public init?(text: String) {
        guard text.hasSuffix("\n") else { return nil }
        let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 3, !lines[0].isEmpty, lines.allSatisfy({ !$0.isEmpty }) else { return nil }
        guard let size = PlainDecimal.value(lines[1]),
            let root = Base64.decode(lines[2]), root.count == MerkleHash.size
        else { return nil }
        self.init(origin: lines[0], size: size, rootHash: Array(root), extensions: Array(lines.dropFirst(3)))
    }
}

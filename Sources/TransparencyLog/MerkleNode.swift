/// A perfect subtree of the log's Merkle tree: the 2^level leaves from `index << level` on.
/// Level 0 is a leaf. Every hash a proof or a tree head needs is a combination of these.
public struct MerkleNode: Hashable, Sendable, CustomStringConvertible {
    public let level: Int
    public let index: Int64

    public init(level: Int, index: Int64) {
        precondition(level >= 0 && level < 63 && index >= 0)
        self.level = level
        self.index = index
    }

    /// The leaves it covers.
    public var leaves: Range<Int64> { (index << Int64(level))..<((index + 1) << Int64(level)) }

    public var left: MerkleNode { MerkleNode(level: level - 1, index: index * 2) }
    public var right: MerkleNode { MerkleNode(level: level - 1, index: index * 2 + 1) }

    public var description: String { "\(level)/\(index)" }

    /// The perfect subtrees whose hashes make MTH of `range` (RFC 9162 §2.1.1), largest first.
    /// `range` is one that the RFC's recursion reaches from a tree that starts at leaf 0: it
    /// splits at the largest power of two below its size, so each part starts aligned.
    public static func subtrees(of range: Range<Int64>) -> [MerkleNode] {
        precondition(!range.isEmpty)
        var nodes: [MerkleNode] = []
        var start = range.lowerBound
        while start < range.upperBound {
            let count = range.upperBound - start
            let size: Int64 = count & (count - 1) == 0 ? count : Int64(MerkleHash.largestPowerOfTwo(below: Int(count)))
            let level = size.trailingZeroBitCount
            precondition(start % size == 0, "range \(range) is not one of the tree's")
            nodes.append(MerkleNode(level: level, index: start >> Int64(level)))
            start += size
        }
        return nodes
    }

    /// MTH of `range` from the hashes of its ``subtrees(of:)``: the right side folded first.
    public static func head(of subtrees: [[UInt8]]) -> [UInt8] {
        guard var hash = subtrees.last else { return MerkleHash.emptyTree }
        for left in subtrees.dropLast().reversed() { hash = MerkleHash.node(left, hash) }
        return hash
    }

    /// The compact range of a tree of `size` leaves: one node for each bit set in `size`,
    /// largest first (the left siblings a leaf appended next may need).
    public static func compactRange(size: Int64) -> [MerkleNode] {
        size == 0 ? [] : subtrees(of: 0..<size)
    }
}

/// The leaf ranges whose heads make RFC 9162's proofs (§2.1.3.1 PATH, §2.1.4.1 PROOF), in
/// the proof's order: what to read, before any hash is read.
public enum MerkleRanges {
    /// The ranges of leaf `index`'s audit path in the tree of `size` leaves.
    public static func inclusion(index: Int64, size: Int64) -> [Range<Int64>] {
        precondition(index >= 0 && index < size)
        return path(index, 0..<size)
    }

    /// The ranges of the proof that the tree of `from` leaves (one or more) is a prefix of
    /// the tree of `to`; none when they are one tree.
    public static func consistency(from: Int64, to: Int64) -> [Range<Int64>] {
        precondition(from > 0 && from <= to)
        return subproof(from, 0..<to, complete: true)
    }

    private static func path(_ index: Int64, _ range: Range<Int64>) -> [Range<Int64>] {
        guard range.count > 1 else { return [] }
        let split = range.lowerBound + Int64(MerkleHash.largestPowerOfTwo(below: range.count))
        if index < split { return path(index, range.lowerBound..<split) + [split..<range.upperBound] }
        return path(index, split..<range.upperBound) + [range.lowerBound..<split]
    }

    private static func subproof(_ end: Int64, _ range: Range<Int64>, complete: Bool) -> [Range<Int64>] {
        if end == range.upperBound { return complete ? [] : [range] }
        let split = range.lowerBound + Int64(MerkleHash.largestPowerOfTwo(below: range.count))
        if end <= split {
            return subproof(end, range.lowerBound..<split, complete: complete) + [split..<range.upperBound]
        }
        return subproof(end, split..<range.upperBound, complete: false) + [range.lowerBound..<split]
    }
}

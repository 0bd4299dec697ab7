/// Inclusion and consistency proofs of an RFC 9162 Merkle tree (§2.1.3, §2.1.4): made from
/// the leaf hashes, and checked by a verifier that has only the proof and the tree heads.
/// The checks follow transparency-dev/merkle's verifier, so that a proof either refuses is
/// refused here too.
public enum MerkleProof {
    /// Why a proof does not hold.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: Making proofs

    /// The audit path of leaf `index` in the tree of `leaves` (PATH of RFC 9162 §2.1.3.1).
    public static func inclusion(index: Int, leaves: ArraySlice<[UInt8]>) -> [[UInt8]] {
        precondition(index >= 0 && index < leaves.count)
        return heads(MerkleRanges.inclusion(index: Int64(index), size: Int64(leaves.count)), leaves)
    }

    /// The proof that the tree of the first `size` leaves (one or more) is a prefix of the
    /// tree of all `leaves` (PROOF of RFC 9162 §2.1.4.1); empty when `size` is the whole tree.
    public static func consistency(size: Int, leaves: ArraySlice<[UInt8]>) -> [[UInt8]] {
        precondition(size > 0 && size <= leaves.count)
        return heads(MerkleRanges.consistency(from: Int64(size), to: Int64(leaves.count)), leaves)
    }

    private static func heads(_ ranges: [Range<Int64>], _ leaves: ArraySlice<[UInt8]>) -> [[UInt8]] {
        ranges.map { range in
            MerkleHash.root(
                leaves[(leaves.startIndex + Int(range.lowerBound))..<(leaves.startIndex + Int(range.upperBound))])
        }
    }

    // MARK: Checking proofs

    /// Checks that `leafHash` is leaf `index` of the tree of `size` leaves with head `root`.
    public static func verifyInclusion(
        index: UInt64, size: UInt64, leafHash: [UInt8], proof: [[UInt8]], root: [UInt8]
    ) throws(Failure) {
        let computed = try rootFromInclusion(index: index, size: size, leafHash: leafHash, proof: proof)
        guard computed == root else { throw Failure("the proof leads to another tree head") }
    }

    /// The tree head an inclusion proof leads to.
    public static func rootFromInclusion(
        index: UInt64, size: UInt64, leafHash: [UInt8], proof: [[UInt8]]
    ) throws(Failure) -> [UInt8] {
        guard index < size else { throw Failure("leaf \(index) is not in a tree of \(size)") }
        guard leafHash.count == MerkleHash.size else {
            throw Failure("the leaf hash has \(leafHash.count) bytes, not \(MerkleHash.size)")
        }
        try checkHashes(proof)
        let (inner, border) = decomposition(index: index, size: size)
        guard proof.count == inner + border else {
            throw Failure("the proof has \(proof.count) hashes, not \(inner + border)")
        }
        let hash = chainInner(leafHash, proof[..<inner], index: index)
        return chainBorderRight(hash, proof[inner...])
    }

    /// Checks that the tree of `size1` leaves with head `root1` is a prefix of the tree of
    /// `size2` leaves with head `root2`.
    public static func verifyConsistency(
        size1: UInt64, size2: UInt64, root1: [UInt8], root2: [UInt8], proof: [[UInt8]]
    ) throws(Failure) {
        if size2 < size1 { throw Failure("the second tree (\(size2)) is smaller than the first (\(size1))") }
        // Every tree extends the empty one: such a proof would prove nothing, and a verifier
        // that accepted it could be shown any tree at all.
        if size1 == 0 { throw Failure("a consistency proof needs a first tree of one leaf or more") }
        if size1 == size2 {
            guard proof.isEmpty else { throw Failure("trees of one size need an empty proof") }
            guard root1 == root2 else { throw Failure("two trees of size \(size1) have different heads") }
            return
        }
        guard !proof.isEmpty else { throw Failure("the proof is empty") }
        try checkHashes(proof)
        var (inner, border) = decomposition(index: size1 - 1, size: size2)
        let shift = size1.trailingZeroBitCount
        inner -= shift  // below inner, as size1 < size2
        // The proof starts with the head of the subtree of 2^shift leaves, unless the first
        // tree is that subtree.
        let (seed, start) = size1 == UInt64(1) << shift ? (root1, 0) : (proof[0], 1)
        guard proof.count == start + inner + border else {
            throw Failure("the proof has \(proof.count) hashes, not \(start + inner + border)")
        }
        let path = proof[start...]
        let mask = (size1 - 1) >> UInt64(shift)
        let innerPath = path.prefix(inner), borderPath = path.dropFirst(inner)
        let head1 = chainBorderRight(chainInnerRight(seed, innerPath, index: mask), borderPath)
        guard head1 == root1 else { throw Failure("the proof does not lead to the first tree's head") }
        let head2 = chainBorderRight(chainInner(seed, innerPath, index: mask), borderPath)
        guard head2 == root2 else { throw Failure("the proof does not lead to the second tree's head") }
    }

    // MARK: The verifier's steps

    private static func checkHashes(_ proof: [[UInt8]]) throws(Failure) {
        if let bad = proof.firstIndex(where: { $0.count != MerkleHash.size }) {
            throw Failure("hash \(bad + 1) of the proof has \(proof[bad].count) bytes, not \(MerkleHash.size)")
        }
    }

    /// The proof's hashes below the point where the leaf's path meets the tree's right
    /// border (inner), and those along the border (border).
    private static func decomposition(index: UInt64, size: UInt64) -> (inner: Int, border: Int) {
        let inner = UInt64.bitWidth - (index ^ (size - 1)).leadingZeroBitCount
        let border = (inner >= UInt64.bitWidth ? 0 : index >> UInt64(inner)).nonzeroBitCount
        return (inner, border)
    }

    private static func chainInner(_ seed: [UInt8], _ proof: ArraySlice<[UInt8]>, index: UInt64) -> [UInt8] {
        var hash = seed
        for (level, sibling) in proof.enumerated() {
            hash = (index >> UInt64(level)) & 1 == 0 ? MerkleHash.node(hash, sibling) : MerkleHash.node(sibling, hash)
        }
        return hash
    }

    private static func chainInnerRight(_ seed: [UInt8], _ proof: ArraySlice<[UInt8]>, index: UInt64) -> [UInt8] {
        var hash = seed
        for (level, sibling) in proof.enumerated() where (index >> UInt64(level)) & 1 == 1 {
            hash = MerkleHash.node(sibling, hash)
        }
        return hash
    }

    private static func chainBorderRight(_ seed: [UInt8], _ proof: ArraySlice<[UInt8]>) -> [UInt8] {
        proof.reduce(seed) { hash, sibling in MerkleHash.node(sibling, hash) }
    }
}

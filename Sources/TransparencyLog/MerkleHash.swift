import Crypto

/// The hashes of an RFC 9162 (§2.1.1) Merkle tree over SHA-256: a leaf is hashed with the
/// prefix 0x00, an interior node with 0x01, so that no leaf can pass for a node.
public enum MerkleHash {
    /// The size of every hash, in bytes.
    public static let size = 32

    /// The hash of the empty tree: SHA-256 of nothing.
    public static let emptyTree: [UInt8] = Array(SHA256.hash(data: []))

    public static func leaf(_ data: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: [0x00])
        hasher.update(data: Array(data))
        return Array(hasher.finalize())
    }

    public static func node(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: [0x01])
        hasher.update(data: left)
        hasher.update(data: right)
        return Array(hasher.finalize())
    }

    /// The tree head of `leaves` (leaf hashes, in order): MTH of RFC 9162 §2.1.1.
    public static func root(_ leaves: ArraySlice<[UInt8]>) -> [UInt8] {
        switch leaves.count {
        case 0: return emptyTree
        case 1: return leaves[leaves.startIndex]
        default:
            let split = leaves.startIndex + largestPowerOfTwo(below: leaves.count)
            return node(root(leaves[..<split]), root(leaves[split...]))
        }
    }

    /// The largest power of two smaller than `n` (n > 1): where RFC 9162 splits a tree.
    static func largestPowerOfTwo(below n: Int) -> Int {
        precondition(n > 1)
        return 1 << (Int.bitWidth - 1 - (n - 1).leadingZeroBitCount)
    }
}

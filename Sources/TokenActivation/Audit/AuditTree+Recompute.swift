import TransparencyLog
import WalletModel

extension AuditTree {
    /// The tree recomputed from the rows alone, ignoring every stored node: what `audit
    /// verify` holds a checkpoint against.
    public struct Recomputed: Sendable {
        /// The heads at the sizes asked for.
        public let heads: [Int64: [UInt8]]
        /// Every leaf hash, 32 bytes each, in order.
        public let leafHashes: [UInt8]

        public func leafHash(_ index: Int64) -> [UInt8] {
            Array(leafHashes[Int(index) * MerkleHash.size..<Int(index + 1) * MerkleHash.size])
        }
    }

    /// Reads the rows of the first `size` leaves once and answers the heads at `sizes`.
    public func recompute(size: Int64, heads sizes: Set<Int64>) async throws -> Recomputed {
        var heads: [Int64: [UInt8]] = [:]
        if sizes.contains(0) { heads[0] = MerkleHash.emptyTree }
        var range: [(level: Int, hash: [UInt8])] = []
        var leaves: [UInt8] = []
        leaves.reserveCapacity(Int(size) * MerkleHash.size)
        var count: Int64 = 0
        while count < size {
            let end = min(count + 4096, size)
            for data in try await leafData(count..<end) {
                var hash = MerkleHash.leaf(data)
                leaves += hash
                var level = 0
                while let last = range.last, last.level == level {
                    range.removeLast()
                    hash = MerkleHash.node(last.hash, hash)
                    level += 1
                }
                range.append((level, hash))
                count += 1
                if sizes.contains(count) { heads[count] = MerkleNode.head(of: range.map(\.hash)) }
            }
        }
        return Recomputed(heads: heads, leafHashes: leaves)
    }

    /// The first leaf below `size` whose stored hash differs from `recomputed`'s; nil when
    /// every stored leaf agrees (or none is stored).
    public func firstStoredLeafDiffering(from recomputed: Recomputed, size: Int64) async throws -> Int64? {
        let blocks = await min(size / Self.blockSize, try store.storedTreeBlocks())
        var start: Int64 = 0
        while start < blocks {
            let end = min(start + 1024, blocks)
            let found = try await store.treeLeafBlocks(Array(start..<end))
            for block in start..<end {
                guard let hashes = found[block] else { continue }
                for (offset, hash) in Self.split(hashes).enumerated() {
                    let leaf = block * Self.blockSize + Int64(offset)
                    if hash != recomputed.leafHash(leaf) { return leaf }
                }
            }
            start = end
        }
        return nil
    }
}

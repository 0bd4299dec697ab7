import ErrorCodes
import TransparencyLog
import WalletModel

/// The Merkle tree over the audit rows (DESIGN §9, RFC 9162 §2.1): leaf i is the row at
/// position i of the chain, its leaf data the row's hashed text. The rows are read in blocks
/// of 16; for every whole block the store keeps its 16 leaf hashes in one value and the tree's
/// nodes of 16 leaves and up (``catchUp(chunkBlocks:)``): about 40 bytes and 3/16 of an insert a row. A
/// tree head or a proof so reads O(log n) stored hashes, the leaf hashes of at most two
/// blocks, and the rows not caught up yet.
public struct AuditTree: Sendable {
    /// Nodes of 2^4 = 16 leaves and up are stored as nodes; below them, a block's leaf hashes.
    public static let storedLevel = StoredTreeLayout.storedLevel
    public static let blockSize = StoredTreeLayout.blockSize

    let store: any TransparencyLogStore

    public init(store: any TransparencyLogStore) {
        self.store = store
    }

    /// The current tree size: every committed row.
    public func size() async throws -> Int64 {
        try await store.auditTreeSize()
    }

    /// The tree head of the first `size` leaves.
    public func rootHash(size: Int64) async throws -> [UInt8] {
        try await hashes(of: [0..<size])[0]
    }

    /// The audit path of leaf `index` in the tree of `size` leaves.
    public func inclusionProof(index: Int64, size: Int64) async throws -> [[UInt8]] {
        try await hashes(of: MerkleRanges.inclusion(index: index, size: size))
    }

    /// The proof that the tree of `from` leaves is a prefix of the tree of `to`.
    public func consistencyProof(from: Int64, to: Int64) async throws -> [[UInt8]] {
        try await hashes(of: MerkleRanges.consistency(from: from, to: to))
    }

    /// The leaf data and leaf hash of leaf `index`.
    public func leaf(_ index: Int64) async throws -> (data: [UInt8], hash: [UInt8]) {
        let data = try await leafData(index..<(index + 1))[0]
        return (data, MerkleHash.leaf(data))
    }

    /// The heads of `ranges` (each one the RFC's recursion reaches; the empty range is the
    /// empty tree): one query for the stored nodes, one for the stored leaf blocks, and one
    /// per run of rows not caught up.
    public func hashes(of ranges: [Range<Int64>]) async throws -> [[UInt8]] {
        let stored = try await store.storedTreeBlocks() * Self.blockSize
        // A node inside the stored blocks is read: a stored node from its level up, else its
        // block's leaves. One across the stored end is made of its children; the rest of the
        // rows.
        var nodes = Set<MerkleNode>(), blocks = Set<Int64>(), fromRows = Set<MerkleNode>()
        func place(_ node: MerkleNode) {
            if node.leaves.upperBound <= stored {
                if node.level >= Self.storedLevel {
                    nodes.insert(node)
                } else {
                    blocks.insert(node.leaves.lowerBound / Self.blockSize)
                }
            } else if node.leaves.lowerBound >= stored || node.level == 0 {
                fromRows.insert(node)
            } else {
                place(node.left)
                place(node.right)
            }
        }
        for range in ranges where !range.isEmpty { MerkleNode.subtrees(of: range).forEach(place) }
        var known = try await store.treeNodes(Array(nodes))
        if let missing = nodes.first(where: { known[$0] == nil }) {
            throw Self.lacking("its node \(missing)")
        }
        let leafBlocks = try await store.treeLeafBlocks(Array(blocks))
        for block in blocks {
            guard let hashes = leafBlocks[block] else { throw Self.lacking("the leaf hashes of block \(block)") }
            for (offset, hash) in Self.split(hashes).enumerated() {
                known[MerkleNode(level: 0, index: block * Self.blockSize + Int64(offset))] = hash
            }
        }
        let rowRanges = fromRows.map(\.leaves).sorted { $0.lowerBound < $1.lowerBound }
        for run in Self.runs(rowRanges) {
            let data = try await leafData(run)
            for (offset, leaf) in data.enumerated() {
                known[MerkleNode(level: 0, index: run.lowerBound + Int64(offset))] = MerkleHash.leaf(leaf)
            }
        }
        return ranges.map { range in
            range.isEmpty
                ? MerkleHash.emptyTree
                : MerkleNode.head(of: MerkleNode.subtrees(of: range).map { Self.hash($0, &known) })
        }
    }

    /// Stores every whole block of rows not stored yet: its leaf hashes and the nodes it
    /// completes, reading the rows in chunks. Rows are leaves once committed, and committed in
    /// chain order: what is stored here never changes. Answers how many blocks were added.
    @discardableResult
    public func catchUp(chunkBlocks: Int64 = 256) async throws -> Int64 {
        let storedBlocks = try await store.storedTreeBlocks()
        let wholeBlocks = try await size() / Self.blockSize
        guard wholeBlocks > storedBlocks else { return 0 }
        // The left siblings the next blocks may need: the compact range of the stored blocks.
        let frontierNodes = MerkleNode.compactRange(size: storedBlocks).map {
            MerkleNode(level: $0.level + Self.storedLevel, index: $0.index)
        }
        let found = try await store.treeNodes(frontierNodes)
        var frontier: [Int: [UInt8]] = [:]
        for node in frontierNodes {
            guard let hash = found[node] else { throw Self.lacking("its node \(node)") }
            frontier[node.level] = hash
        }
        var block = storedBlocks
        while block < wholeBlocks {
            let end = min(block + chunkBlocks, wholeBlocks)
            let leaves = try await leafData((block * Self.blockSize)..<(end * Self.blockSize)).map(MerkleHash.leaf)
            var nodes: [(node: MerkleNode, hash: [UInt8])] = [], leafBlocks: [(block: Int64, hashes: [UInt8])] = []
            for index in block..<end {
                let first = Int((index - block) * Self.blockSize)
                let blockLeaves = leaves[first..<(first + Int(Self.blockSize))]
                leafBlocks.append((index, Array(blockLeaves.joined())))
                var hash = MerkleHash.root(blockLeaves)
                var node = MerkleNode(level: Self.storedLevel, index: index)
                nodes.append((node, hash))
                // An odd node completes its parent with the left sibling waiting in the frontier.
                while node.index & 1 == 1, let left = frontier[node.level] {
                    frontier[node.level] = nil
                    hash = MerkleHash.node(left, hash)
                    node = MerkleNode(level: node.level + 1, index: node.index >> 1)
                    nodes.append((node, hash))
                }
                frontier[node.level] = hash
            }
            try await store.storeTree(nodes: nodes, leafBlocks: leafBlocks)
            block = end
        }
        return wholeBlocks - storedBlocks
    }

    /// The leaf data of `range`: each row's hashed text, the rows numbered without gaps.
    func leafData(_ range: Range<Int64>) async throws -> [[UInt8]] {
        var data: [[UInt8]] = []
        data.reserveCapacity(range.count)
        var after = range.lowerBound
        while after < range.upperBound {
            let rows = try await store.auditPage(after: after, limit: Int(min(range.upperBound - after, 4096)))
            guard !rows.isEmpty else {
                throw StorageError(
                    .storageCorrupt,
                    "the audit has no row \(after + 1), which its tree of \(range.upperBound) rows holds; run tokenctl audit verify"
                )
            }
            for row in rows {
                guard row.seq == after + 1, let content = row.content else {
                    throw StorageError(
                        .storageCorrupt,
                        "the audit's row \(after + 1) is missing or unreadable; run tokenctl audit verify")
                }
                data.append(content.hashedText(previous: row.previousHash))
                after += 1
                if after == range.upperBound { break }
            }
        }
        return data
    }

    /// A block's stored leaf hashes, one by one.
    static func split(_ hashes: [UInt8]) -> [[UInt8]] {
        stride(from: 0, to: hashes.count, by: MerkleHash.size).map {
            Array(hashes[$0..<min($0 + MerkleHash.size, hashes.count)])
        }
    }

    private static func lacking(_ what: String) -> StorageError {
        StorageError(.storageCorrupt, "the audit's Merkle tree lacks \(what); run tokenctl audit verify")
    }

    /// A node's hash from what is known, made from its children where it is not.
    private static func hash(_ node: MerkleNode, _ known: inout [MerkleNode: [UInt8]]) -> [UInt8] {
        if let hash = known[node] { return hash }
        let hash = MerkleHash.node(Self.hash(node.left, &known), Self.hash(node.right, &known))
        known[node] = hash
        return hash
    }

    /// Overlapping or touching ranges merged.
    private static func runs(_ sorted: [Range<Int64>]) -> [Range<Int64>] {
        var runs: [Range<Int64>] = []
        for range in sorted {
            if let last = runs.last, range.lowerBound <= last.upperBound {
                runs[runs.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                runs.append(range)
            }
        }
        return runs
    }
}

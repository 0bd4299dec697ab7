import ErrorCodes

/// The Merkle tree over the audit rows (DESIGN §9, RFC 9162 §2.1): leaf i is the row at
/// position i of the chain, its leaf data the row's hashed text. The store keeps the nodes
/// of ``storedLevel`` and up for every whole block of rows (``catchUp()``); below them, and
/// for rows not caught up yet, hashes are made from the rows. A tree head or a proof so
/// reads O(log n) stored hashes (and the rows not caught up yet).
public struct AuditTree {
    /// Every node is stored, leaves too (about two hashes a row): a proof reads no row, and
    /// a rewritten row is found leaf by leaf against the stored leaves.
    public static let storedLevel = 0
    public static let blockSize = Int64(1) << Int64(storedLevel)

    let store: any TransparencyLogStore

    public init(store: any TransparencyLogStore) {
        self.store = store
    }

    /// The current tree size: every committed row.
    public func size() throws -> Int64 {
        try store.auditTreeSize()
    }

    /// The tree head of the first `size` leaves.
    public func rootHash(size: Int64) throws -> [UInt8] {
        try hashes(of: [0..<size])[0]
    }

    /// The audit path of leaf `index` in the tree of `size` leaves.
    public func inclusionProof(index: Int64, size: Int64) throws -> [[UInt8]] {
        try hashes(of: MerkleRanges.inclusion(index: index, size: size))
    }

    /// The proof that the tree of `from` leaves is a prefix of the tree of `to`.
    public func consistencyProof(from: Int64, to: Int64) throws -> [[UInt8]] {
        try hashes(of: MerkleRanges.consistency(from: from, to: to))
    }

    /// The leaf data and leaf hash of leaf `index`.
    public func leaf(_ index: Int64) throws -> (data: [UInt8], hash: [UInt8]) {
        let data = try leafData(index..<(index + 1))[0]
        return (data, MerkleHash.leaf(data))
    }

    /// The heads of `ranges` (each one the RFC's recursion reaches; the empty range is the
    /// empty tree), read with one query for the stored hashes and one per run of rows.
    public func hashes(of ranges: [Range<Int64>]) throws -> [[UInt8]] {
        let stored = try store.storedTreeBlocks() * Self.blockSize
        // Stored: whole nodes of the stored level and up inside the stored blocks; a node
        // across the stored end is made of its children, on either side of it.
        var fromStore = Set<MerkleNode>(), fromRows = Set<MerkleNode>()
        func place(_ node: MerkleNode) {
            if node.leaves.upperBound <= stored, node.level >= Self.storedLevel {
                fromStore.insert(node)
            } else if node.leaves.lowerBound >= stored || node.level <= Self.storedLevel {
                fromRows.insert(node)
            } else {
                place(node.left)
                place(node.right)
            }
        }
        for range in ranges where !range.isEmpty { MerkleNode.subtrees(of: range).forEach(place) }
        var known = try store.treeNodes(Array(fromStore))
        if let missing = fromStore.first(where: { known[$0] == nil }) {
            throw StorageError(.storageCorrupt, "the audit's Merkle tree lacks its node \(missing); run tokenctl audit verify")
        }
        // The rest from the rows: each node's leaves, read in runs.
        let rowRanges = fromRows.map(\.leaves).sorted { $0.lowerBound < $1.lowerBound }
        for run in Self.runs(rowRanges) {
            let data = try leafData(run)
            for (offset, leaf) in data.enumerated() {
                known[MerkleNode(level: 0, index: run.lowerBound + Int64(offset))] = MerkleHash.leaf(leaf)
            }
        }
        return ranges.map { range in
            range.isEmpty ? MerkleHash.emptyTree : MerkleNode.head(of: MerkleNode.subtrees(of: range).map { Self.hash($0, &known) })
        }
    }

    /// Stores the nodes of every whole block of rows not stored yet (and the nodes above them
    /// that the new blocks complete), reading the rows in chunks. Rows are leaves once
    /// committed, and committed in chain order: a node made here never changes. Answers how
    /// many blocks were added.
    @discardableResult
    public func catchUp(chunkBlocks: Int64 = 4096) throws -> Int64 {
        let storedBlocks = try store.storedTreeBlocks()
        let wholeBlocks = try size() / Self.blockSize
        guard wholeBlocks > storedBlocks else { return 0 }
        // The left siblings the next blocks may need: the compact range of the stored blocks.
        let frontierNodes = MerkleNode.compactRange(size: storedBlocks).map {
            MerkleNode(level: $0.level + Self.storedLevel, index: $0.index)
        }
        let found = try store.treeNodes(frontierNodes)
        var frontier: [Int: [UInt8]] = [:]
        for node in frontierNodes {
            guard let hash = found[node] else {
                throw StorageError(.storageCorrupt, "the audit's Merkle tree lacks its node \(node); run tokenctl audit verify")
            }
            frontier[node.level] = hash
        }
        var block = storedBlocks
        while block < wholeBlocks {
            let end = min(block + chunkBlocks, wholeBlocks)
            let data = try leafData((block * Self.blockSize)..<(end * Self.blockSize))
            var made: [(node: MerkleNode, hash: [UInt8])] = []
            for index in block..<end {
                let first = Int((index - block) * Self.blockSize)
                var hash = MerkleHash.root(data[first..<(first + Int(Self.blockSize))].map(MerkleHash.leaf)[...])
                var node = MerkleNode(level: Self.storedLevel, index: index)
                made.append((node, hash))
                // An odd node completes its parent with the left sibling waiting in the frontier.
                while node.index & 1 == 1, let left = frontier[node.level] {
                    frontier[node.level] = nil
                    hash = MerkleHash.node(left, hash)
                    node = MerkleNode(level: node.level + 1, index: node.index >> 1)
                    made.append((node, hash))
                }
                frontier[node.level] = hash
            }
            try store.storeTreeNodes(made)
            block = end
        }
        return wholeBlocks - storedBlocks
    }

    /// The leaf data of `range`: each row's hashed text, the rows numbered without gaps.
    func leafData(_ range: Range<Int64>) throws -> [[UInt8]] {
        var data: [[UInt8]] = []
        data.reserveCapacity(range.count)
        var after = range.lowerBound
        while after < range.upperBound {
            let rows = try store.auditPage(after: after, limit: Int(min(range.upperBound - after, 4096)))
            guard !rows.isEmpty else {
                throw StorageError(.storageCorrupt, "the audit has no row \(after + 1), which its tree of \(range.upperBound) rows holds; run tokenctl audit verify")
            }
            for row in rows {
                guard row.seq == after + 1, let content = row.content else {
                    throw StorageError(.storageCorrupt, "the audit's row \(after + 1) is missing or unreadable; run tokenctl audit verify")
                }
                data.append(content.hashedText(previous: row.previousHash))
                after += 1
                if after == range.upperBound { break }
            }
        }
        return data
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

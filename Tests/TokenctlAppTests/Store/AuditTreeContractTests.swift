import ErrorCodes
import Foundation
import TestSupport
import Testing
import TokenActivation
import TokenctlApp
import TransparencyLog
import WalletModel

/// The audit's Merkle tree on both drivers (DESIGN §9): tree heads and proofs made from the
/// stored nodes and the rows equal those made from every leaf in memory, before and after
/// the stored nodes catch up, and a proof reads O(log n) stored hashes and at most two
/// blocks of rows.
@Suite struct AuditTreeContractTests {
    let directory = TemporaryDirectory()

    @Test(arguments: Driver.allCases)
    func headsAndProofsAreTheTreeOfTheRows(_ driver: Driver) async throws {
        let store = try await driver.make(in: directory)
        try await store.with { store in
            let tree = AuditTree(store: store)
            await #expect(try tree.size() == 0)
            await #expect(try tree.rootHash(size: 0) == MerkleHash.emptyTree)
            // 37 attempts: 74 rows, 4 whole blocks and a part.
            try await Self.appendAttempts(37, to: store)
            let leaves = try await Self.leafHashes(store)
            #expect(leaves.count == 74)
            await #expect(try tree.size() == 74)
            try await Self.expectTheTree(tree, of: leaves, sizes: [1, 2, 3, 15, 16, 17, 33, 64, 73, 74])
            // Caught up: the same heads and proofs from the stored nodes.
            await #expect(try tree.catchUp() == 4)
            await #expect(try store.storedTreeBlocks() == 4)
            await #expect(try tree.catchUp() == 0)
            try await Self.expectTheTree(tree, of: leaves, sizes: [1, 16, 17, 32, 48, 63, 64, 65, 74])
            // More rows, caught up a block at a time: the nodes above complete.
            try await Self.appendAttempts(60, to: store, from: 38)
            let more = try await Self.leafHashes(store)
            await #expect(try tree.catchUp(chunkBlocks: 1) == 8)
            await #expect(try store.storedTreeBlocks() == 12)
            let upper = try await store.treeNodes([
                MerkleNode(level: 7, index: 0), MerkleNode(level: 6, index: 2), MerkleNode(level: 6, index: 3),
                MerkleNode(level: 8, index: 0),
            ])
            #expect(upper[MerkleNode(level: 7, index: 0)] == MerkleHash.root(more[0..<128]))
            #expect(upper[MerkleNode(level: 6, index: 2)] == MerkleHash.root(more[128..<192]))
            #expect(upper.count == 2, "a node whose leaves are not all there is not stored")
            try await Self.expectTheTree(tree, of: more, sizes: [74, 128, 129, 191, 192, 193, 194])
        }
    }

    /// A stored note of log `origin` at `size`, signed by key `key` (its id, the first four
    /// bytes of the signature line).
    static func note(_ origin: String, _ size: Int64, key: UInt8, root: String = "r") -> StoredCheckpoint {
        let signature = Data([0, 0, 0, key] + [UInt8](repeating: 7, count: 64)).base64EncodedString()
        return StoredCheckpoint(size: size, note: "\(origin)\n\(size)\n\(root)\n\n— \(origin) \(signature)\n")
    }

    /// Checkpoints are found by size and by log (origin), append-only per origin, key and
    /// size (a rotated key or origin stores its own at a size already signed, and is the one
    /// found); cosignatures by size, witness and log.
    @Test(arguments: Driver.allCases)
    func checkpointsAndCosignaturesAreFoundBySizeLogAndWitness(_ driver: Driver) async throws {
        do {
            let store = try await driver.make(in: directory)
            try await store.with { store in
                let a = "log.example/a", b = "log.example/b"
                await #expect(try store.storedCheckpoint(size: nil, origin: nil) == nil)
                for size in [4, 10, 7] as [Int64] { try await store.storeCheckpoint(Self.note(a, size, key: 1)) }
                try await store.storeCheckpoint(Self.note(a, 10, key: 1, root: "other"))
                await #expect(try store.storedCheckpoint(size: nil, origin: a) == Self.note(a, 10, key: 1))
                await #expect(try store.storedCheckpoint(size: 7, origin: a) == Self.note(a, 7, key: 1))
                await #expect(try store.storedCheckpoint(size: 5, origin: nil) == nil)
                #expect(Self.note(a, 10, key: 1).keyID == "00000001" && Self.note(a, 10, key: 1).origin == a)
                // A new key of the same log at the same size: stored beside, and found.
                try await store.storeCheckpoint(Self.note(a, 10, key: 2))
                await #expect(try store.storedCheckpoint(size: nil, origin: a) == Self.note(a, 10, key: 2))
                await #expect(try store.storedCheckpoint(size: 10, origin: nil) == Self.note(a, 10, key: 2))
                // A new origin: found as the newest of all, the old log's still by its origin.
                try await store.storeCheckpoint(Self.note(b, 10, key: 3))
                await #expect(try store.storedCheckpoint(size: nil, origin: nil) == Self.note(b, 10, key: 3))
                await #expect(try store.storedCheckpoint(size: nil, origin: a) == Self.note(a, 10, key: 2))
                await #expect(try store.storedCheckpoints().count == 5)

                let lines = [("w1", 4), ("w2", 4), ("w1", 10), ("w2", 7)].map {
                    StoredCosignature(origin: a, size: Int64($1), witness: $0, line: "— \($0) x\($1)", time: Int64($1))
                }
                for line in lines { try await store.storeCosignature(line) }
                try await store.storeCosignature(
                    StoredCosignature(origin: a, size: 4, witness: "w1", line: "— w1 again", time: 99))
                let other = StoredCosignature(origin: b, size: 12, witness: "w1", line: "— w1 b", time: 12)
                try await store.storeCosignature(other)
                await #expect(try store.storedCosignatures(size: 4, origin: a) == [lines[0], lines[1]])
                await #expect(try store.latestCosignature(witness: "w1", origin: a) == lines[2])
                await #expect(try store.latestCosignature(witness: "w1", origin: b) == other)
                await #expect(try store.latestCosignature(witness: "w2", origin: a) == lines[3])
                await #expect(try store.latestCosignature(witness: "w3", origin: a) == nil)
                await #expect(try store.largestCosignedSize(origin: a) == 10)
                await #expect(try store.largestCosignedSize(origin: "log.example/none") == nil)
                await #expect(try store.storedCosignatures().count == 5)
            }
        }
    }

    /// What a proof reads, once the tree caught up: the stored hashes along the path, at most
    /// two for each level, two blocks' leaf hashes, and only the rows of the last, part block.
    @Test(arguments: Driver.allCases)
    func aProofReadsLogarithmicallyMany(_ driver: Driver) async throws {
        let store = try await driver.make(in: directory)
        try await store.with { store in
            try await Self.appendAttempts(250, to: store)
            try await AuditTree(store: store).catchUp()
            let counting = CountingStore(store)
            let tree = AuditTree(store: counting)
            let leaves = try await Self.leafHashes(store)
            let proof = try await tree.inclusionProof(index: 200, size: 499)
            #expect(proof == MerkleProof.inclusion(index: 200, leaves: leaves[0..<499]))
            #expect(counting.rowsRead == 3, "\(counting.rowsRead) rows read: those after the 31 whole blocks")
            #expect(counting.nodesAsked <= 18, "\(counting.nodesAsked) nodes asked")
            counting.reset()
            _ = try await tree.consistencyProof(from: 300, to: 496)
            #expect(counting.rowsRead == 0, "\(counting.rowsRead) rows read")
            #expect(counting.nodesAsked <= 18, "\(counting.nodesAsked) nodes asked")
            // Rows not caught up yet are read, and only those.
            try await Self.appendAttempts(5, to: store, from: 251)
            counting.reset()
            await #expect(try tree.rootHash(size: 510) == MerkleHash.root(try Self.leafHashes(store)[0..<510]))
            #expect(counting.rowsRead == 14, "\(counting.rowsRead) rows read: 510 rows, 496 in whole stored blocks")
        }
    }

    /// A stored node that went missing is an error naming the way to look, never a wrong head.
    @Test func aMissingStoredNodeIsCorrupt() async throws {
        let store = try await Driver.sqlite.make(in: directory)
        try await store.with { store in
            try await Self.appendAttempts(40, to: store)
            try await AuditTree(store: store).catchUp()
        }
        try Self.sqlite(
            directory.file("store.sqlite"),
            "DROP TRIGGER audit_tree_node_append_only_delete; DELETE FROM audit_tree_node WHERE level = 6")
        try await store.with { store in
            await #expect {
                try await AuditTree(store: store).rootHash(size: 80)
            } throws: { error in
                (error as? StorageError)?.code == .storageCorrupt && "\(error)".contains("tokenctl audit verify")
            }
        }
    }

    // MARK: Helpers

    /// Every head, inclusion proof (of a few leaves) and consistency proof of the tree of
    /// `leaves` at `sizes`, against the in-memory tree.
    static func expectTheTree(_ tree: AuditTree, of leaves: [[UInt8]], sizes: [Int]) async throws {
        for size in sizes {
            let root = MerkleHash.root(leaves[0..<size])
            await #expect(try tree.rootHash(size: Int64(size)) == root, "head of \(size)")
            for index in Set([0, size / 2, size - 1]) {
                let proof = try await tree.inclusionProof(index: Int64(index), size: Int64(size))
                #expect(
                    proof == MerkleProof.inclusion(index: index, leaves: leaves[0..<size]), "leaf \(index) of \(size)")
                #expect(throws: Never.self) {
                    try MerkleProof.verifyInclusion(
                        index: UInt64(index), size: UInt64(size), leafHash: leaves[index], proof: proof, root: root)
                }
            }
            for from in Set([1, size / 3, size - 1]) where from > 0 {
                let proof = try await tree.consistencyProof(from: Int64(from), to: Int64(size))
                #expect(proof == MerkleProof.consistency(size: from, leaves: leaves[0..<size]), "\(from) to \(size)")
            }
        }
    }

    /// The leaf hashes of every row, from the rows' hashed texts.
    static func leafHashes(_ store: any TokenStore) async throws -> [[UInt8]] {
        var leaves: [[UInt8]] = []
        try await store.forEachAuditRow { row in
            leaves.append(MerkleHash.leaf(row.content!.hashedText(previous: row.previousHash)))
        }
        return leaves
    }

    /// `count` attempts started and finished through the ledger: two rows each.
    static func appendAttempts(_ count: Int, to store: any TokenStore, from first: Int = 1) async throws {
        let ledger = store.ledger()
        for number in first..<(first + count) {
            let record = PassRecord.sample("SN\(number)")
            _ = try await store.insertPass(record)
            let attemptID = try await ledger.begin(PassQuery(serialNumber: record.serialNumber)) {
                ($0.attemptID, Steps.started(record, attemptID: $0.attemptID))
            }
            try await ledger.write(Steps.finished(record, attemptID: attemptID, outcome: "APPROVED", state: .activated))
        }
        await ledger.close()
    }

    /// Runs SQL with the sqlite3 program, started with the suite's own spawner as every program
    /// the suite starts: Foundation's `Process` watches SIGCHLD for the whole test process,
    /// whose other children (exit tests, spawned programs) are waited for by their own owners.
    static func sqlite(_ path: String, _ sql: String) throws {
        let (status, output) = try runProgram("/usr/bin/sqlite3", [path, sql])
        #expect(status == 0, "\(output)")
    }
}

/// A store that counts what the tree reads through it.
final class CountingStore: TransparencyLogStore, @unchecked Sendable {
    let store: any TokenStore
    private(set) var rowsRead = 0
    private(set) var nodesAsked = 0

    init(_ store: any TokenStore) { self.store = store }

    func reset() {
        rowsRead = 0
        nodesAsked = 0
    }
    func auditTreeSize() async throws -> Int64 { try await store.auditTreeSize() }
    func auditPage(after seq: Int64, limit: Int) async throws -> [StoredAuditRow] {
        let rows = try await store.auditPage(after: seq, limit: limit)
        rowsRead += rows.count
        return rows
    }
    func storedTreeBlocks() async throws -> Int64 { try await store.storedTreeBlocks() }
    func auditRowSeqs(attemptID: Int64) async throws -> [Int64] { try await store.auditRowSeqs(attemptID: attemptID) }
    func treeNodes(_ nodes: [MerkleNode]) async throws -> [MerkleNode: [UInt8]] {
        nodesAsked += nodes.count
        return try await store.treeNodes(nodes)
    }
    func treeLeafBlocks(_ blocks: [Int64]) async throws -> [Int64: [UInt8]] {
        nodesAsked += blocks.count
        return try await store.treeLeafBlocks(blocks)
    }
    func storeTree(
        nodes: [(node: MerkleNode, hash: [UInt8])], leafBlocks: [(block: Int64, hashes: [UInt8])]
    ) async throws {
        try await store.storeTree(nodes: nodes, leafBlocks: leafBlocks)
    }
    func storeCheckpoint(_ checkpoint: StoredCheckpoint) async throws { try await store.storeCheckpoint(checkpoint) }
    func storedCheckpoints() async throws -> [StoredCheckpoint] { try await store.storedCheckpoints() }
    func storeCosignature(_ cosignature: StoredCosignature) async throws {
        try await store.storeCosignature(cosignature)
    }
    func storedCosignatures() async throws -> [StoredCosignature] { try await store.storedCosignatures() }
    func storedCheckpoint(size: Int64?, origin: String?) async throws -> StoredCheckpoint? {
        try await store.storedCheckpoint(size: size, origin: origin)
    }
    func storedCosignatures(size: Int64, origin: String) async throws -> [StoredCosignature] {
        try await store.storedCosignatures(size: size, origin: origin)
    }
    func latestCosignature(witness: String, origin: String) async throws -> StoredCosignature? {
        try await store.latestCosignature(witness: witness, origin: origin)
    }
    func largestCosignedSize(origin: String) async throws -> Int64? {
        try await store.largestCosignedSize(origin: origin)
    }
}

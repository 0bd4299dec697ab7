import GRDB
import TransparencyLog
import WalletModel

extension Store: TransparencyLogStore {
    public func auditTreeSize() async throws -> Int64 {
        try await read { try TransparencyLogTables.treeSize($0) }
    }

    public func auditRowSeqs(attemptID: Int64) async throws -> [Int64] {
        try await read { db in
            try Int64.fetchAll(
                db, sql: "SELECT seq FROM audit_row WHERE attempt_id = ? ORDER BY seq", arguments: [attemptID])
        }
    }

    public func storedTreeBlocks() async throws -> Int64 {
        try await read { try TransparencyLogTables.storedBlocks($0) }
    }

    public func treeNodes(_ nodes: [MerkleNode]) async throws -> [MerkleNode: [UInt8]] {
        try await read { try TransparencyLogTables.nodes(nodes, $0) }
    }

    public func treeLeafBlocks(_ blocks: [Int64]) async throws -> [Int64: [UInt8]] {
        try await read { try TransparencyLogTables.leafBlocks(blocks, $0) }
    }

    public func storeTree(
        nodes: [(node: MerkleNode, hash: [UInt8])], leafBlocks: [(block: Int64, hashes: [UInt8])]
    ) async throws {
        try await write { db in
            try TransparencyLogTables.insert(leafBlocks, db)
            try TransparencyLogTables.insert(nodes, db)
        }
    }

    public func storeCheckpoint(_ checkpoint: StoredCheckpoint) async throws {
        try await write { try TransparencyLogTables.insert(checkpoint, $0) }
    }

    public func storedCheckpoints() async throws -> [StoredCheckpoint] {
        try await read { try TransparencyLogTables.checkpoints($0) }
    }

    public func storeCosignature(_ cosignature: StoredCosignature) async throws {
        try await write { try TransparencyLogTables.insert(cosignature, $0) }
    }

    public func storedCosignatures() async throws -> [StoredCosignature] {
        try await read { try TransparencyLogTables.cosignatures($0) }
    }

    public func storedCheckpoint(size: Int64?, origin: String?) async throws -> StoredCheckpoint? {
        try await read { try TransparencyLogTables.checkpoint(size: size, origin: origin, $0) }
    }

    public func storedCosignatures(size: Int64, origin: String) async throws -> [StoredCosignature] {
        try await read { try TransparencyLogTables.cosignatures(size: size, origin: origin, $0) }
    }

    public func latestCosignature(witness: String, origin: String) async throws -> StoredCosignature? {
        try await read { try TransparencyLogTables.latestCosignature(witness: witness, origin: origin, $0) }
    }

    public func largestCosignedSize(origin: String) async throws -> Int64? {
        try await read { try TransparencyLogTables.largestCosignedSize(origin: origin, $0) }
    }
}

import GRDB
import TransparencyLog
import WalletModel

extension Store: TransparencyLogStore {
    public func auditTreeSize() throws -> Int64 {
        try read { try TransparencyLogTables.treeSize($0) }
    }

    public func auditRowSeqs(attemptID: Int64) throws -> [Int64] {
        try read { db in
            try Int64.fetchAll(
                db, sql: "SELECT seq FROM audit_row WHERE attempt_id = ? ORDER BY seq", arguments: [attemptID])
        }
    }

    public func storedTreeBlocks() throws -> Int64 {
        try read { try TransparencyLogTables.storedBlocks($0) }
    }

    public func treeNodes(_ nodes: [MerkleNode]) throws -> [MerkleNode: [UInt8]] {
        try read { try TransparencyLogTables.nodes(nodes, $0) }
    }

    public func treeLeafBlocks(_ blocks: [Int64]) throws -> [Int64: [UInt8]] {
        try read { try TransparencyLogTables.leafBlocks(blocks, $0) }
    }

    public func storeTree(
        nodes: [(node: MerkleNode, hash: [UInt8])], leafBlocks: [(block: Int64, hashes: [UInt8])]
    ) throws {
        try write { db in
            try TransparencyLogTables.insert(leafBlocks, db)
            try TransparencyLogTables.insert(nodes, db)
        }
    }

    public func storeCheckpoint(_ checkpoint: StoredCheckpoint) throws {
        try write { try TransparencyLogTables.insert(checkpoint, $0) }
    }

    public func storedCheckpoints() throws -> [StoredCheckpoint] {
        try read { try TransparencyLogTables.checkpoints($0) }
    }

    public func storeCosignature(_ cosignature: StoredCosignature) throws {
        try write { try TransparencyLogTables.insert(cosignature, $0) }
    }

    public func storedCosignatures() throws -> [StoredCosignature] {
        try read { try TransparencyLogTables.cosignatures($0) }
    }

    public func storedCheckpoint(size: Int64?, origin: String?) throws -> StoredCheckpoint? {
        try read { try TransparencyLogTables.checkpoint(size: size, origin: origin, $0) }
    }

    public func storedCosignatures(size: Int64, origin: String) throws -> [StoredCosignature] {
        try read { try TransparencyLogTables.cosignatures(size: size, origin: origin, $0) }
    }

    public func latestCosignature(witness: String, origin: String) throws -> StoredCosignature? {
        try read { try TransparencyLogTables.latestCosignature(witness: witness, origin: origin, $0) }
    }

    public func largestCosignedSize(origin: String) throws -> Int64? {
        try read { try TransparencyLogTables.largestCosignedSize(origin: origin, $0) }
    }
}

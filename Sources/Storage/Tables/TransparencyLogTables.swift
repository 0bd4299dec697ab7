import Foundation
import GRDB
import TransparencyLog
import WalletModel

/// The statements of the audit's transparency log: the tree's stored nodes and the
/// checkpoints (migrations v10 to v12).
enum TransparencyLogTables {
    static func treeSize(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM audit_row") ?? 0
    }

    static func storedBlocks(_ db: Database) throws -> Int64 {
        let last = try Int64.fetchOne(
            db, sql: "SELECT max(idx) FROM audit_tree_node WHERE level = ?", arguments: [StoredTreeLayout.storedLevel])
        return last.map { $0 + 1 } ?? 0
    }

    static func nodes(_ nodes: [MerkleNode], _ db: Database) throws -> [MerkleNode: [UInt8]] {
        var found: [MerkleNode: [UInt8]] = [:]
        let statement = try db.cachedStatement(sql: "SELECT hash FROM audit_tree_node WHERE level = ? AND idx = ?")
        for node in nodes {
            if let hash = try Data.fetchOne(statement, arguments: [node.level, node.index]) {
                found[node] = Array(hash)
            }
        }
        return found
    }

    static func leafBlocks(_ blocks: [Int64], _ db: Database) throws -> [Int64: [UInt8]] {
        var found: [Int64: [UInt8]] = [:]
        let statement = try db.cachedStatement(sql: "SELECT hashes FROM audit_tree_leaves WHERE block = ?")
        for block in blocks {
            if let hashes = try Data.fetchOne(statement, arguments: [block]) { found[block] = Array(hashes) }
        }
        return found
    }

    static func insert(_ leafBlocks: [(block: Int64, hashes: [UInt8])], _ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO audit_tree_leaves (block, hashes) VALUES (?, ?)")
        for (block, hashes) in leafBlocks {
            let direct = DirectStatement(statement, db)
            direct.bind(1, Int(block))
            direct.bind(2, blob: hashes)
            _ = try direct.run()
        }
    }

    static func insert(_ nodes: [(node: MerkleNode, hash: [UInt8])], _ db: Database) throws {
        // Through the C API (GRDB's argument boxing costs more than the insert).
        let statement = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO audit_tree_node (level, idx, hash) VALUES (?, ?, ?)")
        for (node, hash) in nodes {
            let direct = DirectStatement(statement, db)
            direct.bind(1, node.level)
            direct.bind(2, Int(node.index))
            direct.bind(3, blob: hash)
            _ = try direct.run()
        }
    }

    static func insert(_ checkpoint: StoredCheckpoint, _ db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO audit_checkpoint (origin, key_id, size, note) VALUES (?, ?, ?, ?)",
            arguments: [checkpoint.origin, checkpoint.keyID, checkpoint.size, checkpoint.note]
        )
    }

    static func checkpoint(size: Int64?, origin: String?, _ db: Database) throws -> StoredCheckpoint? {
        var conditions: [String] = [], arguments: StatementArguments = []
        if let size {
            conditions.append("size = ?")
            arguments += [size]
        }
        if let origin {
            conditions.append("origin = ?")
            arguments += [origin]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let row = try Row.fetchOne(
            db, sql: "SELECT size, note FROM audit_checkpoint \(filter) ORDER BY size DESC, rowid DESC LIMIT 1",
            arguments: arguments)
        return row.map { StoredCheckpoint(size: $0[0], note: $0[1]) }
    }

    static func cosignatures(size: Int64, origin: String, _ db: Database) throws -> [StoredCosignature] {
        try Row.fetchAll(
            db,
            sql:
                "SELECT origin, size, witness, line, time FROM audit_cosignature WHERE origin = ? AND size = ? ORDER BY witness",
            arguments: [origin, size]
        ).map(cosignature)
    }

    static func latestCosignature(witness: String, origin: String, _ db: Database) throws -> StoredCosignature? {
        try Row.fetchOne(
            db,
            sql:
                "SELECT origin, size, witness, line, time FROM audit_cosignature WHERE witness = ? AND origin = ? ORDER BY size DESC LIMIT 1",
            arguments: [witness, origin]
        ).map(cosignature)
    }

    static func largestCosignedSize(origin: String, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT max(size) FROM audit_cosignature WHERE origin = ?", arguments: [origin])
    }

    private static func cosignature(_ row: Row) -> StoredCosignature {
        StoredCosignature(origin: row[0], size: row[1], witness: row[2], line: row[3], time: row[4])
    }

    static func checkpoints(_ db: Database) throws -> [StoredCheckpoint] {
        try Row.fetchAll(db, sql: "SELECT size, note FROM audit_checkpoint ORDER BY size, rowid").map {
            StoredCheckpoint(size: $0["size"], note: $0["note"])
        }
    }

    static func insert(_ cosignature: StoredCosignature, _ db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO audit_cosignature (origin, witness, size, line, time) VALUES (?, ?, ?, ?, ?)",
            arguments: [cosignature.origin, cosignature.witness, cosignature.size, cosignature.line, cosignature.time]
        )
    }

    static func cosignatures(_ db: Database) throws -> [StoredCosignature] {
        try Row.fetchAll(
            db, sql: "SELECT origin, size, witness, line, time FROM audit_cosignature ORDER BY size, origin, witness"
        ).map(cosignature)
    }
}

import HexCoding
import PostgresNIO
import TransparencyLog
import WalletModel

/// The audit's transparency log on PostgreSQL (migrations v7 to v9): one round trip for any set of
/// nodes, read or written.
extension PostgresStore: TransparencyLogStore {
    public func auditTreeSize() async throws -> Int64 {
        try await query("SELECT coalesce(max(seq), 0)::bigint FROM audit_row").first?.decode(Int64.self) ?? 0
    }

    public func auditRowSeqs(attemptID: Int64) async throws -> [Int64] {
        try await query("SELECT seq FROM audit_row WHERE attempt_id = \(attemptID) ORDER BY seq").map {
            try $0.decode(Int64.self)
        }
    }

    public func storedTreeBlocks() async throws -> Int64 {
        let level = StoredTreeLayout.storedLevel
        return try await query("SELECT coalesce(max(idx) + 1, 0)::bigint FROM audit_tree_node WHERE level = \(level)")
            .first?
            .decode(Int64.self) ?? 0
    }

    public func treeNodes(_ nodes: [MerkleNode]) async throws -> [MerkleNode: [UInt8]] {
        guard !nodes.isEmpty else { return [:] }
        let levels = nodes.map(\.level), indexes = nodes.map(\.index)
        let rows = try await query(
            """
            SELECT n.level, n.idx, encode(n.hash, 'hex') FROM audit_tree_node n
            JOIN unnest(\(levels)::integer[], \(indexes)::bigint[]) AS w(level, idx) ON n.level = w.level AND n.idx = w.idx
            """)
        var found: [MerkleNode: [UInt8]] = [:]
        for row in rows {
            let (level, index, hash) = try row.decode((Int, Int64, String).self)
            guard let bytes = Hex.decode(hash) else { continue }
            found[MerkleNode(level: level, index: index)] = bytes
        }
        return found
    }

    public func treeLeafBlocks(_ blocks: [Int64]) async throws -> [Int64: [UInt8]] {
        guard !blocks.isEmpty else { return [:] }
        let rows = try await query(
            "SELECT block, encode(hashes, 'hex') FROM audit_tree_leaves WHERE block = ANY(\(blocks)::bigint[])")
        var found: [Int64: [UInt8]] = [:]
        for row in rows {
            let (block, hashes) = try row.decode((Int64, String).self)
            found[block] = Hex.decode(hashes)
        }
        return found
    }

    public func storeTree(
        nodes: [(node: MerkleNode, hash: [UInt8])], leafBlocks: [(block: Int64, hashes: [UInt8])]
    ) async throws {
        guard !nodes.isEmpty || !leafBlocks.isEmpty else { return }
        let levels = nodes.map(\.node.level), indexes = nodes.map(\.node.index),
            hashes = nodes.map { Hex.encode($0.hash) }
        let blocks = leafBlocks.map(\.block), leaves = leafBlocks.map { Hex.encode($0.hashes) }
        // One statement, so one transaction: the leaves and the nodes stored together.
        try await query(
            """
            WITH leaves AS (
                INSERT INTO audit_tree_leaves (block, hashes)
                SELECT block, decode(hashes, 'hex') FROM unnest(\(blocks)::bigint[], \(leaves)::text[]) AS b(block, hashes)
                ON CONFLICT DO NOTHING
            )
            INSERT INTO audit_tree_node (level, idx, hash)
            SELECT level, idx, decode(hash, 'hex') FROM unnest(\(levels)::integer[], \(indexes)::bigint[], \(hashes)::text[]) AS n(level, idx, hash)
            ON CONFLICT DO NOTHING
            """)
    }

    public func storeCheckpoint(_ checkpoint: StoredCheckpoint) async throws {
        // origin and key_id are generated from the note.
        try await query(
            "INSERT INTO audit_checkpoint (size, note) VALUES (\(checkpoint.size), \(checkpoint.note)) ON CONFLICT DO NOTHING"
        )
    }

    public func storedCheckpoints() async throws -> [StoredCheckpoint] {
        try await query("SELECT size, note FROM audit_checkpoint ORDER BY size, id").map { row in
            let (size, note) = try row.decode((Int64, String).self)
            return StoredCheckpoint(size: size, note: note)
        }
    }

    public func storeCosignature(_ cosignature: StoredCosignature) async throws {
        try await query(
            """
            INSERT INTO audit_cosignature (origin, witness, size, line, time)
            VALUES (\(cosignature.origin), \(cosignature.witness), \(cosignature.size), \(cosignature.line), \(cosignature.time)) ON CONFLICT DO NOTHING
            """)
    }

    public func storedCosignatures() async throws -> [StoredCosignature] {
        try await query(
            "SELECT origin, size, witness, line, time FROM audit_cosignature ORDER BY size, origin, witness"
        ).map(
            Self.cosignature)
    }

    public func storedCheckpoint(size: Int64?, origin: String?) async throws -> StoredCheckpoint? {
        let rows =
            switch (size, origin) {
            case let (size?, origin?):
                try await query(
                    "SELECT size, note FROM audit_checkpoint WHERE size = \(size) AND origin = \(origin) ORDER BY id DESC LIMIT 1"
                )
            case let (size?, nil):
                try await query("SELECT size, note FROM audit_checkpoint WHERE size = \(size) ORDER BY id DESC LIMIT 1")
            case let (nil, origin?):
                try await query(
                    "SELECT size, note FROM audit_checkpoint WHERE origin = \(origin) ORDER BY size DESC, id DESC LIMIT 1"
                )
            case (nil, nil):
                try await query("SELECT size, note FROM audit_checkpoint ORDER BY size DESC, id DESC LIMIT 1")
            }
        return try rows.first.map { row in
            let (size, note) = try row.decode((Int64, String).self)
            return StoredCheckpoint(size: size, note: note)
        }
    }

    public func storedCosignatures(size: Int64, origin: String) async throws -> [StoredCosignature] {
        try await query(
            """
            SELECT origin, size, witness, line, time FROM audit_cosignature WHERE origin = \(origin) AND size = \(size) ORDER BY witness
            """
        ).map(Self.cosignature)
    }

    public func latestCosignature(witness: String, origin: String) async throws -> StoredCosignature? {
        try await query(
            """
            SELECT origin, size, witness, line, time FROM audit_cosignature WHERE witness = \(witness) AND origin = \(origin)
            ORDER BY size DESC LIMIT 1
            """
        ).first.map(Self.cosignature)
    }

    public func largestCosignedSize(origin: String) async throws -> Int64? {
        try await query("SELECT max(size) FROM audit_cosignature WHERE origin = \(origin)").first?.decode(Int64?.self)
    }

    private static func cosignature(_ row: PostgresRow) throws -> StoredCosignature {
        let (origin, size, witness, line, time) = try row.decode((String, Int64, String, String, Int64).self)
        return StoredCosignature(origin: origin, size: size, witness: witness, line: line, time: time)
    }
}

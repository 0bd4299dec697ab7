import TransparencyLog

/// The audit's transparency log as a driver keeps it (DESIGN §9): the Merkle tree's stored
/// hashes (for each whole block of rows its leaf hashes, and the nodes of
/// ``StoredTreeLayout/storedLevel`` and up) and the signed checkpoints, all append-only. The leaves
/// are the audit rows themselves, read in chain order.
public protocol TransparencyLogStore: Sendable {
    /// The tree's size: the rows of the audit chain (rows are numbered from 1, without gaps).
    func auditTreeSize() async throws -> Int64

    /// Rows after `seq`, in chain order, at most `limit` of them.
    func auditPage(after seq: Int64, limit: Int) async throws -> [StoredAuditRow]

    /// The positions (seq) of the rows of audit entry `attemptID`, in chain order.
    func auditRowSeqs(attemptID: Int64) async throws -> [Int64]

    /// How many blocks of 2^``StoredTreeLayout/storedLevel`` leaves the stored nodes cover, from leaf 0.
    func storedTreeBlocks() async throws -> Int64

    /// The stored hashes of those of `nodes` that are stored.
    func treeNodes(_ nodes: [MerkleNode]) async throws -> [MerkleNode: [UInt8]]

    /// The stored leaf hashes of those of `blocks` that are stored: 16 hashes, 512 bytes each.
    func treeLeafBlocks(_ blocks: [Int64]) async throws -> [Int64: [UInt8]]

    /// Stores nodes and blocks' leaf hashes, in one transaction; what is already stored is
    /// kept (each is a function of the rows).
    func storeTree(
        nodes: [(node: MerkleNode, hash: [UInt8])], leafBlocks: [(block: Int64, hashes: [UInt8])]) async throws

    /// Stores a signed checkpoint under its origin and key id (``StoredCheckpoint/origin``,
    /// ``StoredCheckpoint/keyID``); one of the same log, key and size already stored is kept.
    func storeCheckpoint(_ checkpoint: StoredCheckpoint) async throws

    /// Every stored checkpoint, smallest tree first (a full verify, a copy).
    func storedCheckpoints() async throws -> [StoredCheckpoint]

    /// The stored checkpoint of `size` rows, or the newest when `size` is nil, of log `origin`
    /// (of any log when nil); of two at one size (a key or an origin rotated), the one stored
    /// last. One indexed lookup, however many are stored.
    func storedCheckpoint(size: Int64?, origin: String?) async throws -> StoredCheckpoint?

    /// Stores a witness's cosignature; one by the same witness on the same size is kept.
    func storeCosignature(_ cosignature: StoredCosignature) async throws

    /// Every stored cosignature, smallest tree first (a copy).
    func storedCosignatures() async throws -> [StoredCosignature]

    /// The cosignatures on log `origin`'s checkpoint of `size` rows.
    func storedCosignatures(size: Int64, origin: String) async throws -> [StoredCosignature]

    /// The cosignature of the largest tree of log `origin` that `witness` (its verifier key)
    /// cosigned here.
    func latestCosignature(witness: String, origin: String) async throws -> StoredCosignature?

    /// The largest tree of log `origin` that any witness cosigned here.
    func largestCosignedSize(origin: String) async throws -> Int64?
}

/// How a driver lays the tree out: nodes of 2^4 = 16 leaves and up are stored as nodes; below
/// them, each whole block of 16 rows keeps its leaf hashes in one value.
public enum StoredTreeLayout {
    public static let storedLevel = 4
    public static let blockSize = Int64(1) << Int64(storedLevel)
}

/// A checkpoint as stored: the tree size it signs and the signed note's text.
public struct StoredCheckpoint: Sendable, Equatable {
    public var size: Int64
    public var note: String

    public init(size: Int64, note: String) {
        self.size = size
        self.note = note
    }

    /// The log it belongs to: the note's first line.
    public var origin: String {
        String(note.prefix { $0 != "\n" })
    }

    /// The id of the key whose signature comes first (the log's), 8 hex digits; empty when
    /// the note has no signature line.
    public var keyID: String {
        guard let blank = note.range(of: "\n\n") else { return "" }
        let line = note[blank.upperBound...].prefix { $0 != "\n" }
        guard let (signature, _) = try? SignedNote.signatureLine(ArraySlice(Array(line.utf8))) else { return "" }
        return NoteKey.hex(signature.keyHash)
    }
}

/// A witness's cosignature (`cosignature/v1`) on the checkpoint of `size` rows, as stored.
public struct StoredCosignature: Sendable, Equatable {
    /// The log whose checkpoint was cosigned.
    public var origin: String
    public var size: Int64
    /// The witness's verifier key (`NAME+HASH+KEY`): who cosigned.
    public var witness: String
    /// The note's signature line, `— NAME BASE64`, without its newline.
    public var line: String
    /// When the witness cosigned (POSIX seconds).
    public var time: Int64

    public init(origin: String, size: Int64, witness: String, line: String, time: Int64) {
        self.origin = origin
        self.size = size
        self.witness = witness
        self.line = line
        self.time = time
    }
}

import ErrorCodes
import Foundation
import Logging
import WalletModel

/// The library side of the audit as a transparency log (DESIGN §9): signed checkpoints of
/// the Merkle tree over the audit rows, inclusion and consistency proofs, and the check of
/// a checkpoint against the rows.
public struct TransparencyLog: Sendable {
    private let store: any StoreDriver
    private let logger: Logger

    public init(store: any StoreDriver, logger: Logger = Logger(label: "tokenctl.audit")) {
        self.store = store
        self.logger = logger
    }

    /// A signed checkpoint and whether this call stored it.
    public struct Signed: Sendable {
        public let checkpoint: Checkpoint
        public let note: String
        public let isNew: Bool
    }

    /// Catches the stored tree up with the rows, signs its head and stores the checkpoint.
    /// One of that size already stored is answered as it is (checkpoints are append-only).
    public func checkpoint(origin: String, signer: NoteSigner) throws -> Signed {
        try store.using(logger: logger) { store in try Self.checkpoint(in: store, origin: origin, signer: signer) }
    }

    /// ``checkpoint(origin:signer:)`` on an open store (the service's).
    public static func checkpoint(in store: any TokenStore, origin: String, signer: NoteSigner) throws -> Signed {
        let tree = AuditTree(store: store)
        try tree.catchUp()
        let size = try tree.size()
        if let stored = try store.storedCheckpoint(size: size), let checkpoint = checkpoint(in: stored.note) {
            return Signed(checkpoint: checkpoint, note: try cosigned(stored, in: store).note, isNew: false)
        }
        let checkpoint = Checkpoint(origin: origin, size: UInt64(size), rootHash: try tree.rootHash(size: size))
        let note = try SignedNote.sign(text: checkpoint.text, by: [signer])
        try store.storeCheckpoint(StoredCheckpoint(size: size, note: note))
        return Signed(checkpoint: checkpoint, note: note, isNew: true)
    }

    /// `checkpoint` with the cosignatures stored for its size, one line each after the log's
    /// signature (a C2SP checkpoint as its witnesses cosigned it).
    public static func cosigned(_ checkpoint: StoredCheckpoint, in store: any TokenStore) throws -> StoredCheckpoint {
        let lines = try store.storedCosignatures(size: checkpoint.size).map { $0.line + "\n" }
        return StoredCheckpoint(size: checkpoint.size, note: checkpoint.note + lines.joined())
    }

    /// One row's inclusion proof.
    public struct RowProof: Sendable {
        public let index: Int64
        public let leafData: [UInt8]
        public let leafHash: [UInt8]
        public let proof: [[UInt8]]
    }

    /// The proofs of an audit entry's rows in the tree of a stored checkpoint.
    public struct EntryProof: Sendable {
        public let entry: Int64
        public let rows: [RowProof]
        public let checkpoint: StoredCheckpoint

        /// The C2SP tlog-proof of each row.
        public var tlogProofs: [TLogProof] {
            rows.map { TLogProof(index: UInt64($0.index), proof: $0.proof, signedCheckpoint: checkpoint.note) }
        }
    }

    /// The proofs of entry `entry`'s rows in the tree of the stored checkpoint of `size`
    /// (the newest one when nil), which must hold every row of the entry.
    public func prove(entry: Int64, size: Int64?) throws -> EntryProof {
        try store.using(logger: logger) { store in
            let seqs = try store.auditRowSeqs(attemptID: entry)
            guard let last = seqs.last else { throw AuditError.notFound(id: entry) }
            let checkpoint = try Self.checkpoint(size: size, in: store)
            guard checkpoint.size >= last else {
                throw AuditError(code: .auditNoCheckpoint, message: "audit entry \(entry) ends at row \(last), after the newest checkpoint (\(checkpoint.size) rows); sign one with tokenctl audit checkpoint, then prove again")
            }
            let tree = AuditTree(store: store)
            let rows = try seqs.map { seq in
                let (data, hash) = try tree.leaf(seq - 1)
                return RowProof(index: seq - 1, leafData: data, leafHash: hash, proof: try tree.inclusionProof(index: seq - 1, size: checkpoint.size))
            }
            return EntryProof(entry: entry, rows: rows, checkpoint: checkpoint)
        }
    }

    /// The proof that the tree of `from` leaves is a prefix of the tree of the stored
    /// checkpoint of `to` (the newest when nil). With `oldRoot`, the older tree's head as a
    /// checkpoint gave it: `audit.inconsistent` when this log's tree of that size has another.
    public func consistency(from: Int64, to: Int64?, oldRoot: [UInt8]? = nil) throws -> (checkpoint: StoredCheckpoint, proof: [[UInt8]]) {
        try store.using(logger: logger) { store in
            let checkpoint = try Self.checkpoint(size: to, in: store)
            guard from >= 1, from <= checkpoint.size else {
                throw AuditError(code: .auditNoCheckpoint, message: "a consistency proof goes from a tree of 1 to \(checkpoint.size) rows to the checkpoint of \(checkpoint.size); \(from) is not one")
            }
            let tree = AuditTree(store: store)
            if let oldRoot, try tree.rootHash(size: from) != oldRoot {
                throw AuditError(code: .auditInconsistent, message: "this log's tree of \(from) rows has another head than the older checkpoint: the log was rewritten since, or the checkpoint is another log's (audit verify --checkpoint names the first differing leaf)")
            }
            return (checkpoint, try tree.consistencyProof(from: from, to: checkpoint.size))
        }
    }

    /// Checks a checkpoint the log signed against the rows: its signature by `verifier`,
    /// then its head against the tree recomputed from the rows of its size. A log cut below
    /// the checkpoint's size, or rewritten within it, is `audit.inconsistent`, naming the
    /// missing size or the first leaf that differs from the stored tree.
    public func verify(note: [UInt8], verifier: NoteVerifier) throws -> (checkpoint: Checkpoint, rows: Int64) {
        let opened: SignedNote
        do {
            opened = try SignedNote.open(note, verifiers: [verifier])
        } catch {
            throw AuditError(code: .auditInconsistent, message: "the checkpoint is not signed by \(verifier.name)'s key: \(error)")
        }
        guard let checkpoint = Checkpoint(text: opened.text) else {
            throw AuditError(code: .auditInconsistent, message: "the signed note is not a checkpoint (origin, size, root hash)")
        }
        return try store.using(logger: logger) { store in
            let tree = AuditTree(store: store)
            let rows = try tree.size()
            try Self.check([(Int64(checkpoint.size), checkpoint.rootHash)], rows: rows, tree: tree)
            return (checkpoint, rows)
        }
    }

    /// Checks every stored checkpoint's head against the tree recomputed from the rows (one
    /// pass over them); answers how many there are.
    public func verifyStored() throws -> Int {
        try store.using(logger: logger) { store in
            let stored = try store.storedCheckpoints()
            let heads = try stored.map { stored in
                guard let checkpoint = Self.checkpoint(in: stored.note), Int64(checkpoint.size) == stored.size else {
                    throw AuditError(code: .auditInconsistent, message: "the stored checkpoint of \(stored.size) rows is not a checkpoint of that size")
                }
                return (stored.size, checkpoint.rootHash)
            }
            let tree = AuditTree(store: store)
            try Self.check(heads, rows: try tree.size(), tree: tree)
            return stored.count
        }
    }

    /// `audit.inconsistent` unless the rows make each head.
    private static func check(_ heads: [(size: Int64, root: [UInt8])], rows: Int64, tree: AuditTree) throws {
        guard let largest = heads.map(\.size).max() else { return }
        if largest > rows {
            throw AuditError(code: .auditInconsistent, message: "a checkpoint signs \(largest) rows, but the audit has \(rows): rows were cut from its end (leaf \(rows) on, row \(rows + 1) on, is missing)")
        }
        let recomputed = try tree.recompute(size: largest, heads: Set(heads.map(\.size)))
        for head in heads.sorted(by: { $0.size < $1.size }) where recomputed.heads[head.size] != head.root {
            if let leaf = try tree.firstStoredLeafDiffering(from: recomputed, size: head.size) {
                throw AuditError(code: .auditInconsistent, message: "the audit is not the log its checkpoint of \(head.size) rows signed: leaf \(leaf) (row \(leaf + 1)) differs from the tree as it was stored")
            }
            throw AuditError(code: .auditInconsistent, message: "the audit is not the log its checkpoint of \(head.size) rows signed: its rows make another tree head (the stored tree agrees with the rows, so it was rewritten too: the first differing leaf cannot be named)")
        }
    }

    /// The stored checkpoint of `size` rows, or the newest, with its cosignatures;
    /// `audit.noCheckpoint` when there is none.
    public static func checkpoint(size: Int64?, in store: any TokenStore) throws -> StoredCheckpoint {
        try cosigned(try signedCheckpoint(size: size, in: store), in: store)
    }

    /// The same as the log signed it, without cosignatures (what a witness is sent).
    public static func signedCheckpoint(size: Int64?, in store: any TokenStore) throws -> StoredCheckpoint {
        if let size {
            guard let found = try store.storedCheckpoint(size: size) else {
                let newest = try store.storedCheckpoint(size: nil)
                throw AuditError(code: .auditNoCheckpoint, message: "no checkpoint of \(size) rows is stored (\(newest.map { "the newest is of \($0.size) rows" } ?? "none is")); sign one with tokenctl audit checkpoint")
            }
            return found
        }
        guard let newest = try store.storedCheckpoint(size: nil) else {
            throw AuditError(code: .auditNoCheckpoint, message: "no checkpoint of the audit is stored yet; sign one with tokenctl audit checkpoint")
        }
        return newest
    }

    /// The checkpoint a stored note signs (its text up to the blank line).
    public static func checkpoint(in note: String) -> Checkpoint? {
        guard let end = note.range(of: "\n\n") else { return nil }
        return Checkpoint(text: String(note[..<end.lowerBound]) + "\n")
    }

    /// Sends the stored checkpoint of `size` rows (the newest when nil) to the publisher's
    /// witnesses, on one open store; answers each witness's outcome and the checkpoint with
    /// every cosignature stored for it.
    public func publish(size: Int64?, with publisher: WitnessPublisher) async throws -> (checkpoint: StoredCheckpoint, outcomes: [WitnessPublisher.Outcome]) {
        try await store.using(logger: logger) { store async throws in
            let access = OpenStoreAccess(store: store)
            let plain = try await access.run { store in try Self.signedCheckpoint(size: size, in: store) }
            let outcomes = await publisher.publish(plain, through: access)
            return (try await access.run { store in try Self.cosigned(plain, in: store) }, outcomes)
        }
    }
}

/// A store the caller holds open, reached on its driver's own threads.
struct OpenStoreAccess: AuditStoreAccess, @unchecked Sendable {
    /// Used by one publication at a time, one call after the other.
    let store: any TokenStore

    func run<T: Sendable>(_ body: @escaping @Sendable (any TokenStore) throws -> T) async throws -> T {
        try await store.run { store in try body(store) }
    }
}

import ErrorCodes
import Foundation
import Logging
import TransparencyLog
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
    /// One of that size already stored by this origin and key is answered as it is
    /// (checkpoints are append-only); a new origin or key signs anew. The log fails closed
    /// (``extends(_:in:origin:)``).
    public func checkpoint(origin: String, signer: NoteSigner) async throws -> Signed {
        try await store.using(logger: logger) { store in
            try await Self.checkpoint(in: store, origin: origin, signer: signer)
        }
    }

    /// ``checkpoint(origin:signer:)`` on an open store (the service's).
    /// - Parameter signedBefore: the largest tree the caller signed itself, which the rows
    ///   must still make: a failover to a standby that lacked rows loses the checkpoints
    ///   stored with them, not the signer's memory of them.
    public static func checkpoint(
        in store: any TokenStore, origin: String, signer: NoteSigner, signedBefore: Head? = nil
    ) async throws -> Signed {
        let tree = AuditTree(store: store)
        var (size, root): (Int64, [UInt8]) = (0, [])
        for attempt in 1...3 {
            try await tree.catchUp()
            size = try await tree.size()
            root = try await tree.rootHash(size: size)
            do {
                try await extends(
                    Head(size: size, root: root), in: store, origin: origin, tree: tree, signedBefore: signedBefore)
                break
            } catch let error as AuditError where error.code == .auditInconsistent && attempt < 3 {
                // Another process signed a larger tree since this one read the size: the rows
                // are there, so read the tree again. Fewer rows than that is a cut.
                guard try await tree.size() > size else { throw error }
            }
        }
        if let stored = try await store.storedCheckpoint(size: size, origin: origin), stored.keyID == signer.keyID,
            let checkpoint = checkpoint(in: stored.note)
        {
            return Signed(checkpoint: checkpoint, note: try await cosigned(stored, in: store).note, isNew: false)
        }
        let checkpoint = Checkpoint(origin: origin, size: UInt64(size), rootHash: root)
        let note = try SignedNote.sign(text: checkpoint.text, by: [signer])
        try await store.storeCheckpoint(StoredCheckpoint(size: size, note: note))
        return Signed(checkpoint: checkpoint, note: note, isNew: true)
    }

    /// A tree head: its size and root hash.
    public struct Head: Sendable, Equatable {
        public let size: Int64
        public let root: [UInt8]

        public init(size: Int64, root: [UInt8]) {
            self.size = size
            self.root = root
        }
    }

    /// The log fails closed (DESIGN §9; tlog-checkpoint's MUST NOT): `audit.inconsistent`,
    /// naming both sizes, unless the tree of `head` extends the newest checkpoint stored for
    /// `origin` and the largest tree of `origin` any witness cosigned: a smaller tree is a cut
    /// log (a failover that lost rows, a restored backup), another root at a signed size a fork.
    /// `signedBefore`, a head the caller signed, counts as stored.
    public static func extends(
        _ head: Head, in store: any TokenStore, origin: String, tree: AuditTree, signedBefore: Head? = nil
    ) async throws {
        let newest = try await store.storedCheckpoint(size: nil, origin: origin)
        let cosigned = try await store.largestCosignedSize(origin: origin) ?? 0
        let remembered = signedBefore?.size ?? 0
        let signed = max(newest?.size ?? 0, cosigned, remembered)
        guard head.size >= signed else {
            let by =
                remembered == signed && remembered > max(newest?.size ?? 0, cosigned)
                ? "this service signed (a checkpoint the database no longer holds)"
                : cosigned == signed ? "a witness cosigned" : "this log signed"
            throw AuditError(
                code: .auditInconsistent,
                message:
                    "the audit has \(head.size) rows, but \(by) a checkpoint of \(signed) rows of \(origin): the log was cut (a failover that lost rows, or a restored backup); no checkpoint is signed until an operator decides (operations.md, \"A log that was cut\")"
            )
        }
        if let signedBefore, signedBefore.size > (newest?.size ?? 0) {
            try await requireRoot(
                signedBefore.root, at: signedBefore.size, of: head, tree: tree,
                signedBy: "this service signed", aside: "; the database no longer holds that checkpoint",
                meaning: "the log was cut and written again")
        }
        guard let newest, let stored = checkpoint(in: newest.note) else { return }
        try await requireRoot(
            stored.rootHash, at: newest.size, of: head, tree: tree, signedBy: "this log signed", aside: "",
            meaning: "the log was rewritten (forked)")
    }

    /// `audit.inconsistent` unless the tree of `head` has `expected` as its root at `size`
    /// (a checkpoint `signedBy` at that size).
    private static func requireRoot(
        _ expected: [UInt8], at size: Int64, of head: Head, tree: AuditTree, signedBy: String, aside: String,
        meaning: String
    ) async throws {
        let root = size == head.size ? head.root : try await tree.rootHash(size: size)
        guard root != expected else { return }
        throw AuditError(
            code: .auditInconsistent,
            message:
                "the audit's tree of \(size) rows has another head than the checkpoint of \(size) rows \(signedBy) (the tree now has \(head.size)\(aside)): \(meaning); no checkpoint is signed until an operator decides (operations.md, \"A log that was cut\")"
        )
    }

    /// `checkpoint` with the cosignatures stored for it, one line each after the log's
    /// signature (a C2SP checkpoint as its witnesses cosigned it).
    public static func cosigned(
        _ checkpoint: StoredCheckpoint, in store: any TokenStore
    ) async throws -> StoredCheckpoint {
        let lines = try await store.storedCosignatures(size: checkpoint.size, origin: checkpoint.origin).map {
            $0.line + "\n"
        }
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
    /// (the newest one when nil): of row `row` alone (0: started, 1: finished) when given,
    /// else of every row, and the checkpoint must hold each row proved.
    public func prove(entry: Int64, size: Int64?, row: Int? = nil) async throws -> EntryProof {
        try await store.reading(logger: logger) { store in
            var seqs = try await store.auditRowSeqs(attemptID: entry)
            guard !seqs.isEmpty else { throw AuditError.notFound(id: entry) }
            if let row {
                guard row < seqs.count else {
                    throw AuditError(
                        code: .auditNotFound,
                        message:
                            "audit entry \(entry) has no finished row yet (the attempt has not ended); prove --row started"
                    )
                }
                seqs = [seqs[row]]
            }
            let last = seqs[seqs.count - 1]
            let checkpoint = try await Self.checkpoint(size: size, in: store)
            guard checkpoint.size >= last else {
                let which = size == nil ? "the newest checkpoint" : "the checkpoint of --size \(checkpoint.size)"
                throw AuditError(
                    code: .auditNoCheckpoint,
                    message:
                        "audit entry \(entry)'s row \(last) lies after \(which) (\(checkpoint.size) rows); sign one with tokenctl audit checkpoint (or give a larger --size), then prove again"
                )
            }
            let tree = AuditTree(store: store)
            var rows: [RowProof] = []
            for seq in seqs {
                let (data, hash) = try await tree.leaf(seq - 1)
                rows.append(
                    RowProof(
                        index: seq - 1, leafData: data, leafHash: hash,
                        proof: try await tree.inclusionProof(index: seq - 1, size: checkpoint.size)))
            }
            return EntryProof(entry: entry, rows: rows, checkpoint: checkpoint)
        }
    }

    /// The proof that the tree of `from` leaves is a prefix of the tree of the stored
    /// checkpoint of `to` (the newest when nil). With `oldRoot`, the older tree's head as a
    /// checkpoint gave it: `audit.inconsistent` when this log's tree of that size has another.
    public func consistency(
        from: Int64, to: Int64?, oldRoot: [UInt8]? = nil, oldOrigin: String? = nil
    ) async throws -> (checkpoint: StoredCheckpoint, proof: [[UInt8]]) {
        try await store.reading(logger: logger) { store in
            let tree = AuditTree(store: store)
            let rows = try await tree.size()
            if from > rows {
                throw AuditError(
                    code: .auditInconsistent,
                    message:
                        "the older checkpoint signs \(from) rows, but the audit has \(rows): rows were cut from its end (row \(rows + 1) on is missing)"
                )
            }
            let checkpoint = try await Self.checkpoint(size: to, in: store)
            if let oldOrigin, oldOrigin != checkpoint.origin {
                throw AuditError(
                    code: .auditInconsistent,
                    message:
                        "the older checkpoint is of log \(oldOrigin), the newer of \(checkpoint.origin): a proof between two logs proves nothing (operations.md, \"Rotating the log's key\", says how an auditor bridges them)"
                )
            }
            if from == 0 {
                // Every tree extends the empty one, whose head is SHA-256 of nothing.
                guard oldRoot == nil || oldRoot == MerkleHash.emptyTree else {
                    throw AuditError(
                        code: .auditInconsistent,
                        message:
                            "the older checkpoint signs 0 rows with another head than the empty tree's: it is not a checkpoint of this log"
                    )
                }
                return (checkpoint, [])
            }
            guard from <= checkpoint.size else {
                throw AuditError(
                    code: .auditNoCheckpoint,
                    message:
                        "the checkpoint of \(checkpoint.size) rows does not reach the older one's \(from); sign a newer one with tokenctl audit checkpoint"
                )
            }
            if let oldRoot, try await tree.rootHash(size: from) != oldRoot {
                throw AuditError(
                    code: .auditInconsistent,
                    message:
                        "this log's tree of \(from) rows has another head than the older checkpoint: the log was rewritten since, or the checkpoint is another log's (audit verify --checkpoint names the first differing leaf)"
                )
            }
            return (checkpoint, try await tree.consistencyProof(from: from, to: checkpoint.size))
        }
    }

    /// Checks a checkpoint the log signed against the rows: its signature by `verifier`,
    /// then its head against the tree recomputed from the rows of its size. A log cut below
    /// the checkpoint's size, or rewritten within it, is `audit.inconsistent`, naming the
    /// missing size or the first leaf that differs from the stored tree.
    public func verify(note: [UInt8], verifier: NoteVerifier) async throws -> (checkpoint: Checkpoint, rows: Int64) {
        let checkpoint = try Self.open(note, verifier: verifier, what: "the checkpoint")
        return try await store.reading(logger: logger) { store in
            let tree = AuditTree(store: store)
            let rows = try await tree.size()
            try await Self.check([(Int64(checkpoint.size), checkpoint.rootHash)], rows: rows, tree: tree)
            return (checkpoint, rows)
        }
    }

    /// A checkpoint file's note opened with the log's key. Bytes that are no signed
    /// checkpoint, or carry no signature line, are input the caller gave (`usage.invalid`,
    /// 64); a signature by the key that does not verify, or a checkpoint signed only by other
    /// keys (another log's), is `audit.inconsistent` (65).
    public static func open(_ note: [UInt8], verifier: NoteVerifier, what: String) throws -> Checkpoint {
        let opened: SignedNote
        do {
            opened = try SignedNote.open(note, verifiers: [verifier])
        } catch .malformed {
            throw AuditError(
                code: .usageInvalid,
                message:
                    "\(what) is not a signed note (a checkpoint, a blank line, then signature lines), as audit checkpoint prints it"
            )
        } catch .noVerifiableSignature(let read) {
            let names = Set(read.unverified.map { "\($0.name)+\(NoteKey.hex($0.keyHash))" }).sorted()
            throw AuditError(
                code: .auditInconsistent,
                message:
                    "\(what) is another log's: it is signed by \(names.joined(separator: ", ")), not by \(verifier.name)+\(NoteKey.hex(verifier.keyHash)) (--verifier-key)"
            )
        } catch {
            throw AuditError(
                code: .auditInconsistent, message: "\(what) does not verify with \(verifier.name)'s key: \(error)")
        }
        guard let checkpoint = Checkpoint(text: opened.text) else {
            throw AuditError(
                code: .usageInvalid, message: "\(what)'s signed text is not a checkpoint (origin, size, root hash)")
        }
        return checkpoint
    }

    /// Checks every stored checkpoint's head against the tree recomputed from the rows (one
    /// pass over them); answers how many there are.
    public func verifyStored() async throws -> Int {
        try await store.reading(logger: logger) { store in
            let stored = try await store.storedCheckpoints()
            let heads = try stored.map { stored in
                guard let checkpoint = Self.checkpoint(in: stored.note), Int64(checkpoint.size) == stored.size else {
                    throw AuditError(
                        code: .auditInconsistent,
                        message: "the stored checkpoint of \(stored.size) rows is not a checkpoint of that size")
                }
                return (stored.size, checkpoint.rootHash)
            }
            let tree = AuditTree(store: store)
            try await Self.check(heads, rows: try await tree.size(), tree: tree)
            return stored.count
        }
    }

    /// `audit.inconsistent` unless the rows make each head.
    private static func check(_ heads: [(size: Int64, root: [UInt8])], rows: Int64, tree: AuditTree) async throws {
        guard let largest = heads.map(\.size).max() else { return }
        if largest > rows {
            throw AuditError(
                code: .auditInconsistent,
                message:
                    "a checkpoint signs \(largest) rows, but the audit has \(rows): rows were cut from its end (leaf \(rows) on, row \(rows + 1) on, is missing)"
            )
        }
        let recomputed = try await tree.recompute(size: largest, heads: Set(heads.map(\.size)))
        for head in heads.sorted(by: { $0.size < $1.size }) where recomputed.heads[head.size] != head.root {
            if let leaf = try await tree.firstStoredLeafDiffering(from: recomputed, size: head.size) {
                throw AuditError(
                    code: .auditInconsistent,
                    message:
                        "the audit is not the log its checkpoint of \(head.size) rows signed: leaf \(leaf) (row \(leaf + 1)) differs from the tree as it was stored"
                )
            }
            throw AuditError(
                code: .auditInconsistent,
                message:
                    "the audit is not the log its checkpoint of \(head.size) rows signed: its rows make another tree head (the stored tree agrees with the rows, so it was rewritten too: the first differing leaf cannot be named)"
            )
        }
    }

    /// The stored checkpoint of `size` rows, or the newest, with its cosignatures;
    /// `audit.noCheckpoint` when there is none.
    public static func checkpoint(size: Int64?, in store: any TokenStore) async throws -> StoredCheckpoint {
        try await cosigned(try signedCheckpoint(size: size, in: store), in: store)
    }

    /// The same as the log signed it, without cosignatures (what a witness is sent).
    public static func signedCheckpoint(size: Int64?, in store: any TokenStore) async throws -> StoredCheckpoint {
        if let size {
            guard let found = try await store.storedCheckpoint(size: size, origin: nil) else {
                let newest = try await store.storedCheckpoint(size: nil, origin: nil)
                throw AuditError(
                    code: .auditNoCheckpoint,
                    message:
                        "no checkpoint of \(size) rows is stored (\(newest.map { "the newest is of \($0.size) rows" } ?? "none is")); sign one with tokenctl audit checkpoint"
                )
            }
            return found
        }
        guard let newest = try await store.storedCheckpoint(size: nil, origin: nil) else {
            throw AuditError(
                code: .auditNoCheckpoint,
                message: "no checkpoint of the audit is stored yet; sign one with tokenctl audit checkpoint")
        }
        return newest
    }

    /// The checkpoint a stored note signs (its text up to the blank line).
    public static func checkpoint(in note: String) -> Checkpoint? {
        guard let end = note.range(of: "\n\n") else { return nil }
        return Checkpoint(text: String(note[..<end.lowerBound]) + "\n")
    }

    /// Sends the stored checkpoint of `size` rows (the newest when nil) to the publisher's
    /// witnesses, on one open store; answers each witness's outcome, the checkpoint with
    /// every cosignature stored for it, and the witnesses (verifier keys) among them.
    public func publish(
        size: Int64?, with publisher: WitnessPublisher
    ) async throws -> (checkpoint: StoredCheckpoint, outcomes: [WitnessPublisher.Outcome], stored: Set<String>) {
        try await store.using(logger: logger) { store async throws in
            let plain = try await Self.signedCheckpoint(size: size, in: store)
            let outcomes = await publisher.publish(plain, in: store)
            let stored = try await store.storedCosignatures(size: plain.size, origin: plain.origin)
            return (try await Self.cosigned(plain, in: store), outcomes, Set(stored.map(\.witness)))
        }
    }
}

import Foundation

@testable import TransparencyLog

// libFuzzer entry point for what the transparency log reads from outside (`make fuzz`):
// checkpoints, signed notes, tlog-proof files, verifier keys, inclusion and consistency
// proofs as a witness or an auditor sends them, and a witness's answers to add-checkpoint.
// Properties: nothing crashes; an accepted checkpoint or tlog-proof writes back to the same
// text; an accepted verifier key writes back to it with its hash in lower case; a note opened
// with the fuzzer's key holds only signatures that key made; an answer read as a cosignature
// is one the witness's key made on the checkpoint, and one read as a conflict names the size
// its body says.

/// A fixed key (golang.org/x/mod's sumdb/note test key), so that inputs signed by it (in the
/// seed corpus) reach the signature and proof checks.
private let signer = try! NoteSigner(
    signerKey: "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz")

/// A witness key of a fixed seed (0, 1, … 31), and the checkpoint it is asked to cosign.
private let witness = try! Cosignature.Signer(name: "witness.example/w1", seed: Array(0..<32))
private let cosigned = "example.com/log\n5\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTransparencyLog(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let checkpoint = Checkpoint(text: text) {
        precondition(checkpoint.text == text, "an accepted checkpoint does not write back to its text")
    }
    if let note = try? SignedNote.open(bytes, verifiers: [signer.verifier]) {
        precondition(!note.signatures.isEmpty, "a note was opened without a verified signature")
        precondition(note.signatures.allSatisfy { $0.name == signer.name && $0.keyHash == signer.keyHash })
    }
    if let proof = try? TLogProof(text: text) {
        precondition(proof.text == text, "an accepted tlog-proof does not write back to its text")
        _ = try? proof.verify(leafHash: MerkleHash.leaf(bytes), log: signer.verifier)
    }
    if let verifier = try? NoteVerifier(verifierKey: text) {
        // Go reads the hash with ParseUint, so upper-case hex is accepted; it is written lower.
        let fields = text.split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        precondition(
            verifier.verifierKey == "\(fields[0])+\(fields[1].lowercased())+\(fields[2])",
            "an accepted verifier key does not write back to its text")
    }
    _ = try? Cosignature.Verifier(verifierKey: text)
    if case .cosigned(let signature, let time) = WitnessExchange.answer(
        status: 200, body: bytes, checkpoint: cosigned, witness: witness.verifier)
    {
        precondition(
            witness.verifier.time(of: signature, on: cosigned) == time,
            "a cosignature was read that the witness's key did not make")
    }
    if case .conflict(let size) = WitnessExchange.answer(
        status: 409, body: bytes, checkpoint: cosigned, witness: witness.verifier)
    {
        precondition(text == "\(size)\n", "a conflict was read whose body is not its size")
    }
    // The bytes as a proof: the first two give the sizes, the rest 32-byte hashes.
    if bytes.count >= 2 {
        let size1 = UInt64(bytes[0]), size2 = UInt64(bytes[1])
        let hashes = stride(from: 2, to: bytes.count - 31, by: 32).map { Array(bytes[$0..<($0 + 32)]) }
        let root = hashes.first ?? MerkleHash.emptyTree
        _ = try? MerkleProof.verifyInclusion(
            index: size1, size: size2, leafHash: root, proof: Array(hashes.dropFirst()), root: root)
        _ = try? MerkleProof.verifyConsistency(
            size1: size1, size2: size2, root1: root, root2: root, proof: Array(hashes.dropFirst()))
    }
    return 0
}

import Crypto
import Foundation
import TestSupport
import Testing
import TransparencyLog

/// RFC 9162 Merkle proofs: the published vectors of transparency-dev/merkle (the proofs a
/// verifier accepts and the ones it must refuse), and proofs this code makes for every
/// pair of tree sizes up to 64 leaves.
@Suite struct MerkleProofTests {
    @Test func theInclusionVectorsAreAcceptedAndRefusedAsPublished() throws {
        let vectors = try MerkleVectors.load("inclusion")
        #expect(vectors.count > 50, "the vectors are not where the tests look")
        for (name, vector) in vectors {
            let proof = (vector["proof"] as? [Any] ?? []).map(MerkleVectors.bytes)
            let result = Result { () throws(MerkleProof.Failure) in
                try MerkleProof.verifyInclusion(
                    index: vector["leafIdx"] as? UInt64 ?? 0, size: vector["treeSize"] as? UInt64 ?? 0,
                    leafHash: MerkleVectors.bytes(vector["leafHash"]), proof: proof,
                    root: MerkleVectors.bytes(vector["root"])
                )
            }
            let refused = (try? result.get()) == nil
            #expect(refused == (vector["wantErr"] as? Bool ?? false), "\(name): \(vector["desc"] ?? "")")
        }
    }

    @Test func theConsistencyVectorsAreAcceptedAndRefusedAsPublished() throws {
        let vectors = try MerkleVectors.load("consistency")
        #expect(vectors.count > 50, "the vectors are not where the tests look")
        for (name, vector) in vectors {
            let proof = (vector["proof"] as? [Any] ?? []).map(MerkleVectors.bytes)
            let result = Result { () throws(MerkleProof.Failure) in
                try MerkleProof.verifyConsistency(
                    size1: vector["size1"] as? UInt64 ?? 0, size2: vector["size2"] as? UInt64 ?? 0,
                    root1: MerkleVectors.bytes(vector["root1"]), root2: MerkleVectors.bytes(vector["root2"]),
                    proof: proof
                )
            }
            let refused = (try? result.get()) == nil
            #expect(refused == (vector["wantErr"] as? Bool ?? false), "\(name): \(vector["desc"] ?? "")")
        }
    }

    /// The leaf hashes of the reference leaves RFC 6962's test trees are built on (the
    /// vectors' happy paths use them): the empty leaf, then bytes of growing length.
    static let referenceLeaves: [[UInt8]] = [
        "", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f",
    ].map { hex in
        MerkleHash.leaf(stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! })
    }

    /// RFC 6962's reference roots of the first 1 to 8 leaves.
    @Test func theReferenceTreeHeadsAreRFC6962s() {
        let roots = [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
            "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
            "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
            "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
            "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        ]
        for (count, root) in roots.enumerated() {
            #expect(hex(MerkleHash.root(Self.referenceLeaves[...count])) == root, "\(count + 1) leaves")
        }
        #expect(hex(MerkleHash.root([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// Every proof made here verifies, and any change to it (a flipped byte, a hash more or
    /// less, another size) is refused.
    @Test func madeProofsVerifyAndChangedOnesAreRefused() {
        let leaves = (0..<64).map { MerkleHash.leaf(Array("leaf \($0)".utf8)) }
        for size in 1...leaves.count {
            let tree = leaves[..<size]
            let root = MerkleHash.root(tree)
            for index in 0..<size {
                let proof = MerkleProof.inclusion(index: index, leaves: tree)
                #expect(throws: Never.self) {
                    try MerkleProof.verifyInclusion(
                        index: UInt64(index), size: UInt64(size), leafHash: leaves[index], proof: proof, root: root)
                }
                #expect(throws: MerkleProof.Failure.self) {
                    try MerkleProof.verifyInclusion(
                        index: UInt64(index), size: UInt64(size), leafHash: leaves[(index + 1) % 64], proof: proof,
                        root: root)
                }
                if let first = proof.first {
                    var changed = proof
                    changed[0] = [first[0] ^ 1] + first.dropFirst()
                    #expect(throws: MerkleProof.Failure.self) {
                        try MerkleProof.verifyInclusion(
                            index: UInt64(index), size: UInt64(size), leafHash: leaves[index], proof: changed,
                            root: root)
                    }
                }
            }
            #expect(throws: MerkleProof.Failure.self, "0 → \(size)") {
                try MerkleProof.verifyConsistency(
                    size1: 0, size2: UInt64(size), root1: MerkleHash.emptyTree, root2: root, proof: [])
            }
            for earlier in 1...size {
                let proof = MerkleProof.consistency(size: earlier, leaves: tree)
                let head = MerkleHash.root(leaves[..<earlier])
                #expect(throws: Never.self, "\(earlier) → \(size)") {
                    try MerkleProof.verifyConsistency(
                        size1: UInt64(earlier), size2: UInt64(size), root1: head, root2: root, proof: proof)
                }
                guard earlier < size else { continue }
                // A first tree that is not a prefix (a changed leaf) is refused.
                var forked = Array(leaves[..<earlier])
                forked[earlier - 1] = MerkleHash.leaf(Array("forked".utf8))
                #expect(throws: MerkleProof.Failure.self, "\(earlier) → \(size), forked") {
                    try MerkleProof.verifyConsistency(
                        size1: UInt64(earlier), size2: UInt64(size), root1: MerkleHash.root(forked[...]), root2: root,
                        proof: proof)
                }
                #expect(throws: MerkleProof.Failure.self, "\(earlier) → \(size), a hash less") {
                    try MerkleProof.verifyConsistency(
                        size1: UInt64(earlier), size2: UInt64(size), root1: head, root2: root,
                        proof: Array(proof.dropLast()))
                }
            }
        }
    }
}

/// Lower-case hex, as the vectors write hashes.
private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

import Foundation
import Testing
import TransparencyLog

/// Keys and signed notes byte for byte as golang.org/x/mod/sumdb/note makes and reads them:
/// its test keys, its signed note, and the inputs it refuses.
@Suite struct SignedNoteTests {
    static let peterKey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
    static let peterSigner = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
    static let enochKey = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop"
    static let text =
        "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
    static let peterSig =
        "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
    static let enochSig =
        "— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n"
    static let peter = SignedNote.Signature(
        name: "PeterNeumann", keyHash: 0xc74f20a3,
        base64: "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=")
    static let enoch = SignedNote.Signature(
        name: "EnochRoot", keyHash: 0xaf0cfe78,
        base64: "rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=")

    /// Every part of a key, and every changed byte, is refused.
    @Test func keysAreReadAndEveryManglingIsRefused() throws {
        let verifier = try NoteVerifier(verifierKey: Self.peterKey)
        #expect(verifier.name == "PeterNeumann" && verifier.keyHash == 0xc74f20a3)
        #expect(verifier.verifierKey == Self.peterKey)
        // Go reads the hash with ParseUint: upper-case hex is the same key, written back lower.
        let upper = try NoteVerifier(verifierKey: Self.peterKey.replacingOccurrences(of: "c74f20a3", with: "C74F20A3"))
        #expect(upper.keyHash == 0xc74f20a3 && upper.verifierKey == Self.peterKey)
        let signer = try NoteSigner(signerKey: Self.peterSigner)
        #expect(signer.signerKey == Self.peterSigner)
        #expect(signer.verifier.verifierKey == Self.peterKey)
        for (key, read) in [
            (Self.peterKey, { (text: String) in _ = try NoteVerifier(verifierKey: text) }),
            (Self.peterSigner, { (text: String) in _ = try NoteSigner(signerKey: text) }),
        ] {
            let bytes = Array(key.utf8)
            for start in 0...bytes.count {
                for end in (start + 1)..<(bytes.count + 1) where start != 0 || end != bytes.count {
                    #expect(throws: NoteKey.Invalid.self, "\(String(decoding: bytes[start..<end], as: UTF8.self))") {
                        try read(String(decoding: bytes[start..<end], as: UTF8.self))
                    }
                }
            }
            for index in bytes.indices {
                var changed = bytes
                changed[index] &+= 1
                #expect(throws: (any Error).self) { try read(String(decoding: changed, as: UTF8.self)) }
            }
        }
        // A key of the wrong length and an unknown algorithm, each with its hash adjusted.
        #expect(throws: NoteKey.Invalid.self) {
            try NoteVerifier(verifierKey: "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==")
        }
        #expect(throws: NoteKey.Invalid.self) {
            try NoteVerifier(verifierKey: "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")
        }
    }

    @Test func signingGivesTheGoPackagesBytes() throws {
        let signer = try NoteSigner(signerKey: Self.peterSigner)
        let want = Self.text + "\n" + Self.peterSig
        #expect(try SignedNote.sign(text: Self.text, by: [signer]) == want)
        // A signature by the same key is replaced; one by another key is kept before it.
        #expect(
            try SignedNote.sign(
                text: Self.text, by: [signer],
                keeping: [.init(name: "PeterNeumann", keyHash: 0xc74f20a3, base64: "BADSIGN=")]) == want)
        #expect(
            try SignedNote.sign(text: Self.text, by: [signer], keeping: [Self.enoch]) == Self.text + "\n"
                + Self.enochSig + Self.peterSig)
        #expect(throws: SignedNote.Failure.malformed) { try SignedNote.sign(text: "abc", by: [signer]) }
        #expect(throws: SignedNote.Failure.malformed) {
            try SignedNote.sign(text: Self.text, by: [], keeping: [.init(name: "a+b", keyHash: 0, base64: "ABCD")])
        }
        #expect(throws: SignedNote.Failure.malformed) {
            try SignedNote.sign(
                text: Self.text, by: [], keeping: [.init(name: "PeterNeumann", keyHash: 0xc74f20a3, base64: "BADHASH=")]
            )
        }
    }

    @Test func openingVerifiesWhatItKnowsAndKeepsTheRest() throws {
        let peter = try NoteVerifier(verifierKey: Self.peterKey), enoch = try NoteVerifier(verifierKey: Self.enochKey)
        let both = Array((Self.text + "\n" + Self.peterSig + Self.enochSig).utf8)

        let one = try SignedNote.open(both, verifiers: [peter])
        #expect(one.text == Self.text && one.signatures == [Self.peter] && one.unverified == [Self.enoch])
        let two = try SignedNote.open(both, verifiers: [peter, enoch])
        #expect(two.signatures == [Self.peter, Self.enoch] && two.unverified.isEmpty)
        #expect(
            throws: SignedNote.Failure.noVerifiableSignature(
                SignedNote(text: Self.text, unverified: [Self.peter, Self.enoch]))
        ) {
            try SignedNote.open(both, verifiers: [])
        }
        #expect(throws: SignedNote.Failure.ambiguousKey(name: "EnochRoot", keyHash: 0xaf0cfe78)) {
            try SignedNote.open(Array((Self.text + "\n" + Self.enochSig).utf8), verifiers: [enoch, peter, enoch])
        }
        #expect(throws: Never.self) {
            try SignedNote.open(Array((Self.text + "\n" + Self.peterSig).utf8), verifiers: [enoch, peter, enoch])
        }
        #expect(throws: SignedNote.Failure.malformed) {
            try SignedNote.open(
                Array((Self.text + "\n" + String(repeating: Self.peterSig, count: 101)).utf8), verifiers: [peter])
        }

        let cut = Self.peterSig.utf8.count > 60 ? 60 : 0
        let bytes = Array(Self.peterSig.utf8)
        let broken = String(decoding: bytes[..<cut] + Array("ABCD".utf8) + bytes[cut...], as: UTF8.self)
        #expect(throws: SignedNote.Failure.invalidSignature(name: "PeterNeumann", keyHash: 0xc74f20a3)) {
            try SignedNote.open(Array((Self.text + "\n" + broken).utf8), verifiers: [peter])
        }

        // Repeated signatures are dropped: verified ones by key, unverified ones by line.
        let enochBytes = Array(Self.enochSig.utf8)
        let enochBroken = String(decoding: enochBytes[..<60] + Array("ABCD".utf8) + enochBytes[60...], as: UTF8.self)
        let repeated = try SignedNote.open(
            Array(
                (Self.text + "\n" + Self.peterSig + Self.peterSig + Self.enochSig + Self.enochSig + enochBroken).utf8),
            verifiers: [peter])
        #expect(repeated.signatures == [Self.peter])
        #expect(
            repeated.unverified.map(\.base64) == [
                Self.enoch.base64,
                "rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n" + "ABCD"
                    + "2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=",
            ])
        // A second line by a known key is verified too, as the Go package does: an invalid one
        // refuses the note, whether it comes after a valid line or before it.
        #expect(throws: SignedNote.Failure.invalidSignature(name: "PeterNeumann", keyHash: 0xc74f20a3)) {
            try SignedNote.open(Array((Self.text + "\n" + Self.peterSig + broken).utf8), verifiers: [peter])
        }
        #expect(throws: SignedNote.Failure.invalidSignature(name: "PeterNeumann", keyHash: 0xc74f20a3)) {
            try SignedNote.open(Array((Self.text + "\n" + broken + Self.peterSig).utf8), verifiers: [peter])
        }
    }

    @Test(arguments: [
        text,
        text + "\n",
        text + "\n" + String(peterSig.dropLast()),
        "\u{01}" + text + "\n" + peterSig,
        text + "\n"
            + "— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=",
        text + "\n" + peterSig + "Unexpected line.\n",
    ])
    func malformedNotesAreRefused(_ note: String) throws {
        let peter = try NoteVerifier(verifierKey: Self.peterKey)
        #expect(throws: SignedNote.Failure.malformed) { try SignedNote.open(Array(note.utf8), verifiers: [peter]) }
    }

    @Test func invalidUTF8IsMalformed() throws {
        let peter = try NoteVerifier(verifierKey: Self.peterKey)
        #expect(throws: SignedNote.Failure.malformed) {
            try SignedNote.open([0xFF] + Array((Self.text + "\n" + Self.peterSig).utf8), verifiers: [peter])
        }
    }

    /// A new key signs notes its verifier key opens, and a checkpoint's text reads back.
    @Test func aGeneratedKeySignsACheckpoint() throws {
        let signer = try NoteSigner.generate(name: "bank.example/tokenctl")
        let verifier = try NoteVerifier(verifierKey: signer.verifier.verifierKey)
        let checkpoint = Checkpoint(origin: "bank.example/tokenctl", size: 12, rootHash: MerkleHash.leaf([1, 2, 3]))
        #expect(
            checkpoint.text.hasPrefix("bank.example/tokenctl\n12\n")
                && checkpoint.text.split(separator: "\n").count == 3)
        let note = try SignedNote.open(
            Array(try SignedNote.sign(text: checkpoint.text, by: [signer]).utf8), verifiers: [verifier])
        #expect(Checkpoint(text: note.text) == checkpoint)
        for bad in [
            "o\n012\n" + Data(checkpoint.rootHash).base64EncodedString() + "\n", "o\n-1\nAA==\n",
            "\n1\n" + Data(checkpoint.rootHash).base64EncodedString() + "\n", "o\n1\nAAAA\n", "o\n1\n",
        ] {
            #expect(Checkpoint(text: bad) == nil, "\(bad)")
        }
        #expect(throws: NoteKey.Invalid.self) { try NoteSigner.generate(name: "bank example") }
    }
}

/// Witness cosignatures (`cosignature/v1`) on a checkpoint: made, carried in the note,
/// verified with the time they name; another checkpoint, key or time is refused.
@Suite struct CosignatureTests {
    /// Byte-exact with an independent implementation (Python's `cryptography`, from C2SP
    /// tlog-cosignature's text): the key of seed 0…31 named witness.example/w1, at the
    /// specification's example time.
    @Test func aCosignatureLineIsTheSpecificationsBytes() throws {
        let witness = try Cosignature.Signer(name: "witness.example/w1", seed: Array(0..<32))
        let checkpoint = "example.com/log\n5\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"
        let signature = try witness.cosign(checkpoint, time: 1679315147)
        #expect(
            "— \(signature.name) \(signature.base64)"
                == "— witness.example/w1 519lMgAAAABkGFDLLxwrQeH/3pzgkrap+rRfKvTqM9OIns1aVGd1EsbhKeAd0JayzziQ5d/uPX5mWL/SAbEU/RNGuzbYfVPa5URlCA=="
        )
        let answer = Array("— other.example/w2 AAAAAQE=\n— \(signature.name) \(signature.base64)\n".utf8)
        #expect(
            WitnessExchange.answer(status: 200, body: answer, checkpoint: checkpoint, witness: witness.verifier)
                == .cosigned(signature, time: 1679315147))
        #expect(
            WitnessExchange.answer(
                status: 409, body: Array("20852014\n".utf8), checkpoint: checkpoint, witness: witness.verifier)
                == .conflict(size: 20852014))
        for body in ["020852014\n", "20852014", "-1\n", "\n"] {
            #expect(
                WitnessExchange.answer(
                    status: 409, body: Array(body.utf8), checkpoint: checkpoint, witness: witness.verifier)
                    == .refused(status: 409, reason: "the conflict does not name a tree size"))
        }
        guard
            case .refused(200, _) = WitnessExchange.answer(
                status: 200, body: Array("— other.example/w2 AAAAAQE=\n".utf8), checkpoint: checkpoint,
                witness: witness.verifier)
        else {
            Issue.record("an answer without the witness's cosignature was accepted")
            return
        }
        #expect(
            WitnessExchange.request(oldSize: 3, proof: [[UInt8](repeating: 0, count: 32)], note: "N\n")
                == Array("old 3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\nN\n".utf8))
    }

    @Test func aCosignatureVerifiesOnItsCheckpointOnly() throws {
        let log = try NoteSigner.generate(name: "bank.example/tokenctl")
        let witness = try Cosignature.Signer.generate(name: "witness.example/w1")
        let verifier = try Cosignature.Verifier(verifierKey: witness.verifier.verifierKey)
        #expect(verifier.verifierKey == witness.verifier.verifierKey)
        let checkpoint = Checkpoint(origin: "bank.example/tokenctl", size: 20852163, rootHash: MerkleHash.leaf([7]))
            .text

        let cosignature = try witness.cosign(checkpoint, time: 1679315147)
        let raw = try #require(Data(base64Encoded: cosignature.base64))
        #expect(raw.count == 76 && Array(raw[4..<12]) == [0, 0, 0, 0, 0x64, 0x18, 0x50, 0xCB])
        let note = try SignedNote.sign(text: checkpoint, by: [log], keeping: [cosignature])
        let opened = try SignedNote.open(Array(note.utf8), verifiers: [log.verifier])
        #expect(opened.unverified == [cosignature])
        #expect(verifier.time(of: opened.unverified[0], on: opened.text) == 1679315147)

        let other = Checkpoint(origin: "bank.example/tokenctl", size: 20852164, rootHash: MerkleHash.leaf([7])).text
        #expect(verifier.time(of: cosignature, on: other) == nil)
        let stranger = try Cosignature.Signer.generate(name: "witness.example/w1")
        #expect(stranger.verifier.time(of: cosignature, on: checkpoint) == nil)
        // A time changed in the line no longer verifies.
        var changed = Array(raw)
        changed[11] ^= 1
        #expect(
            verifier.time(
                of: .init(
                    name: cosignature.name, keyHash: cosignature.keyHash, base64: Data(changed).base64EncodedString()),
                on: checkpoint) == nil)
        // A log key is not a cosigner key, nor the reverse.
        #expect(throws: NoteKey.Invalid.self) { try Cosignature.Verifier(verifierKey: log.verifier.verifierKey) }
        #expect(throws: NoteKey.Invalid.self) { try NoteVerifier(verifierKey: witness.verifier.verifierKey) }
    }
}

/// tlog-proof files: written, read back, verified for their entry only.
@Suite struct TLogProofTests {
    @Test func aProofFileRoundTripsAndVerifiesItsEntry() throws {
        let log = try NoteSigner.generate(name: "bank.example/tokenctl")
        let leaves = (0..<11).map { MerkleHash.leaf(Array("row \($0)".utf8)) }
        let checkpoint = Checkpoint(origin: log.name, size: 11, rootHash: MerkleHash.root(leaves[...]))
        let signed = try SignedNote.sign(text: checkpoint.text, by: [log])
        let file = TLogProof(
            extra: [1, 2, 3], index: 6, proof: MerkleProof.inclusion(index: 6, leaves: leaves[...]),
            signedCheckpoint: signed)
        #expect(file.text.hasPrefix("c2sp.org/tlog-proof@v1\nextra AQID\nindex 6\n"))
        let read = try TLogProof(text: file.text)
        #expect(read == file)
        #expect(try read.verify(leafHash: leaves[6], log: log.verifier).checkpoint == checkpoint)
        #expect(throws: MerkleProof.Failure.self) { try read.verify(leafHash: leaves[5], log: log.verifier) }
        let otherLog = try NoteSigner.generate(name: "bank.example/tokenctl")
        #expect(throws: SignedNote.Failure.self) { try read.verify(leafHash: leaves[6], log: otherLog.verifier) }
        #expect(try TLogProof(text: TLogProof(index: 0, proof: [], signedCheckpoint: signed).text).extra == nil)
    }

    @Test(arguments: [
        "c2sp.org/tlog-proof@v2\nindex 1\n\nx\n",
        "c2sp.org/tlog-proof@v1\nindex 01\n\nx\n",
        "c2sp.org/tlog-proof@v1\nindex -1\n\nx\n",
        "c2sp.org/tlog-proof@v1\nextra !!\nindex 1\n\nx\n",
        "c2sp.org/tlog-proof@v1\nindex 1\nAAAA\n\nx\n",
        "c2sp.org/tlog-proof@v1\nindex 1\n\n",
        "c2sp.org/tlog-proof@v1\nindex 1\n",
    ])
    func malformedProofFilesAreRefused(_ text: String) {
        #expect(throws: TLogProof.Invalid.self) { try TLogProof(text: text) }
    }
}

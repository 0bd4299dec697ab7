import Foundation
import Sandbox
import TestSupport
import Testing
import TransparencyLog
import WalletModel

/// The sandbox's transparency log witness (C2SP tlog-witness), over a plain socket: it
/// cosigns what extends what it cosigned before, and answers a stale size, a rollback, a
/// fork, an unknown log and a forged signature as the specification says. Checkpoints and
/// proofs are made with the log's own code; the witness shares none of it.
@Suite struct WitnessServerTests {
    let log: NoteSigner
    let leaves = (0..<40).map { MerkleHash.leaf(Array("row \($0)".utf8)) }

    init() throws {
        log = try NoteSigner.generate(name: "bank.example/tokenctl-audit")
    }

    func note(_ size: Int, leaves: [[UInt8]]? = nil, signer: NoteSigner? = nil) throws -> String {
        let checkpoint = Checkpoint(
            origin: log.name, size: UInt64(size), rootHash: MerkleHash.root((leaves ?? self.leaves)[..<size]))
        return try SignedNote.sign(text: checkpoint.text, by: [signer ?? log])
    }

    func submit(
        _ port: Int, old: Int, proof: [[UInt8]] = [], note: String
    ) throws -> (status: Int, contentType: String?, body: String) {
        let body = String(
            decoding: WitnessExchange.request(oldSize: UInt64(old), proof: proof, note: note), as: UTF8.self)
        let answer = try rawHTTP(
            port,
            "POST /add-checkpoint HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        )
        let (head, _, rest) = answer.partitioned("\r\n\r\n")
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        let contentType = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-type:") }.map {
            String($0.dropFirst(13)).trimmingCharacters(in: .whitespaces)
        }
        return (status, contentType, rest)
    }

    func start(trusting keys: [String]? = nil) async throws -> (TMPSandbox, WitnessServer) {
        let witness = WitnessServer(
            logs: (keys ?? [log.verifier.verifierKey]).compactMap(TrustedLogKey.init(verifierKey:)))
        return (try await TMPSandbox.start(port: 0, witness: witness), witness)
    }

    /// The empty tree has one head, SHA-256 of nothing: a size-0 checkpoint with another
    /// root is a conflict (409 naming 0), as is another root at the size it holds.
    @Test func itHoldsTheEmptyTreesHeadAndRefusesAnotherAtTheSameSize() async throws {
        let (sandbox, witness) = try await start()
        try await withTeardown({ try await sandbox.shutdown() }) {
            let forged = try SignedNote.sign(
                text: Checkpoint(origin: log.name, size: 0, rootHash: Array(repeating: 7, count: 32)).text, by: [log])
            let refused = try submit(sandbox.port, old: 0, note: forged)
            #expect(refused.status == 409 && refused.body == "0\n", "\(refused)")
            let empty = try submit(sandbox.port, old: 0, note: try note(0))
            #expect(empty.status == 200, "\(empty)")
            #expect(try submit(sandbox.port, old: 0, note: try note(3)).status == 200)
            let other = (0..<3).map { MerkleHash.leaf(Array("other \($0)".utf8)) }
            let fork = try submit(sandbox.port, old: 3, note: try note(3, leaves: other))
            #expect(fork.status == 409 && fork.body == "3\n", "\(fork)")
            #expect(witness.cosignedSize(origin: log.name) == 3)
        }
    }

    @Test func itCosignsWhatExtendsWhatItCosigned() async throws {
        let (sandbox, witness) = try await start()
        try await withTeardown({ try await sandbox.shutdown() }) {
            let cosigner = try Cosignature.Verifier(verifierKey: witness.verifierKey)
            #expect(cosigner.name == WitnessServer.name)
            #expect(
                try rawRequest(sandbox.port, "GET", "/_sandbox/witness").hasSuffix("\r\n\r\n\(witness.verifierKey)\n"))

            let first = try note(5)
            let answer = try submit(sandbox.port, old: 0, note: first)
            #expect(answer.status == 200, "\(answer.body)")
            let text = try #require(TransparencyLogText.body(of: first))
            guard
                case .cosigned(_, let time) = WitnessExchange.answer(
                    status: 200, body: Array(answer.body.utf8), checkpoint: text, witness: cosigner)
            else {
                Issue.record("no valid cosignature: \(answer.body)")
                return
            }
            #expect(abs(Double(time) - Date().timeIntervalSince1970) < 60)
            #expect(witness.cosignedSize(origin: log.name) == 5)

            // A stale old size: 409 with the size it holds, as text/x.tlog.size.
            let stale = try submit(sandbox.port, old: 0, note: try note(9))
            #expect(stale.status == 409 && stale.contentType == "text/x.tlog.size" && stale.body == "5\n", "\(stale)")
            // From the size it holds, with the proof: cosigned; and again at the same size.
            #expect(
                try submit(
                    sandbox.port, old: 5, proof: MerkleProof.consistency(size: 5, leaves: leaves[..<9]),
                    note: try note(9)
                ).status == 200)
            #expect(try submit(sandbox.port, old: 9, note: try note(9)).status == 200)
            #expect(witness.cosignedSize(origin: log.name) == 9)
        }
    }

    @Test func itRefusesARollbackAForkAndAProofThatDoesNotHold() async throws {
        let (sandbox, witness) = try await start()
        try await withTeardown({ try await sandbox.shutdown() }) {
            #expect(try submit(sandbox.port, old: 0, note: try note(12)).status == 200)
            var forked = leaves
            forked[7] = MerkleHash.leaf(Array("rewritten".utf8))
            // A fork below the cosigned size, with the fork's own proof: 422.
            let fork = try submit(
                sandbox.port, old: 12, proof: MerkleProof.consistency(size: 12, leaves: forked[..<20]),
                note: try note(20, leaves: forked))
            #expect(fork.status == 422, "\(fork)")
            // Another head at the very size it holds: 409 naming that size.
            let sameSize = try submit(sandbox.port, old: 12, note: try note(12, leaves: forked))
            #expect(sameSize.status == 409 && sameSize.body == "12\n", "\(sameSize)")
            // A smaller tree than the old size: 400; an older size than it holds: 409.
            #expect(try submit(sandbox.port, old: 12, note: try note(10)).status == 400)
            #expect(
                try submit(
                    sandbox.port, old: 8, proof: MerkleProof.consistency(size: 8, leaves: leaves[..<10]),
                    note: try note(10)
                ).status == 409)
            // A proof changed in one byte: 422.
            var proof = MerkleProof.consistency(size: 12, leaves: leaves[..<30])
            proof[0][0] ^= 1
            #expect(try submit(sandbox.port, old: 12, proof: proof, note: try note(30)).status == 422)
            #expect(witness.cosignedSize(origin: log.name) == 12)
        }
    }

    @Test func itAnswersAnUnknownLogAForgedSignatureAndNonsense() async throws {
        let (sandbox, witness) = try await start()
        try await withTeardown({ try await sandbox.shutdown() }) {
            let stranger = try NoteSigner.generate(name: "other.example/log")
            let strangerNote = try SignedNote.sign(
                text: Checkpoint(origin: stranger.name, size: 1, rootHash: leaves[0]).text, by: [stranger])
            #expect(try submit(sandbox.port, old: 0, note: strangerNote).status == 404)
            // The log's name, another key: 403.
            let impostor = try NoteSigner.generate(name: log.name)
            #expect(try submit(sandbox.port, old: 0, note: try note(3, signer: impostor)).status == 403)
            #expect(try rawRequest(sandbox.port, "POST", "/add-checkpoint", body: "old 0\n").hasPrefix("HTTP/1.1 400"))
            #expect(try rawRequest(sandbox.port, "GET", "/add-checkpoint").hasPrefix("HTTP/1.1 405"))
            #expect(witness.cosignedSize(origin: log.name) == 0)
        }
    }

    /// Its proof check, alone, against the transparency-dev/merkle vectors.
    @Test func itsConsistencyCheckMeetsThePublishedVectors() throws {
        let vectors = try MerkleVectors.load("consistency")
        #expect(vectors.count > 50)
        for (name, vector) in vectors {
            let size1 = vector["size1"] as? UInt64 ?? 0, size2 = vector["size2"] as? UInt64 ?? 0
            let proof = (vector["proof"] as? [Any] ?? []).map(MerkleVectors.bytes)
            let (root1, root2) = (MerkleVectors.bytes(vector["root1"]), MerkleVectors.bytes(vector["root2"]))
            // The witness checks only 0 < size1 < size2; the equal and empty cases it answers
            // before (409 or no proof).
            guard size1 > 0, size1 < size2 else { continue }
            let holds = ConsistencyCheck.holds(
                first: size1, second: size2, firstHash: root1, secondHash: root2, proof: proof)
            #expect(holds == !(vector["wantErr"] as? Bool ?? false), "\(name): \(vector["desc"] ?? "")")
        }
    }
}

private extension String {
    func partitioned(_ separator: String) -> (String, String, String) {
        guard let range = range(of: separator) else { return (self, "", "") }
        return (String(self[..<range.lowerBound]), separator, String(self[range.upperBound...]))
    }
}

/// A signed note's text, up to its blank line.
enum TransparencyLogText {
    static func body(of note: String) -> String? {
        note.range(of: "\n\n").map { String(note[..<$0.lowerBound]) + "\n" }
    }
}

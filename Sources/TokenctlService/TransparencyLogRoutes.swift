import Foundation
import Hummingbird
import HummingbirdCore
import ServiceAPI
import TextFormats
import TokenActivation
import TransparencyLog
import WalletModel

/// The audit's transparency log over HTTP (DESIGN §9): the newest checkpoint, an inclusion
/// proof as a C2SP tlog-proof, a consistency proof. Plain text, as the formats are.
extension APIRoutes {
    static let plainText = "text/plain; charset=utf-8"

    /// `GET /v1/audit/checkpoint`: the newest stored checkpoint; 404 `audit.noCheckpoint`.
    func auditCheckpoint() async throws -> Response {
        do {
            let stored = try await TransparencyLog.checkpoint(size: nil, in: service.store)
            return Self.body(200, contentType: Self.plainText, Array(stored.note.utf8))
        } catch {
            return Self.problem(Self.storageProblem(error))
        }
    }

    /// `GET /v1/audit/proof?index=I&size=N`: leaf I's tlog-proof in the stored checkpoint of
    /// N rows (the newest when N is not given).
    func auditProof(_ query: FlatDictionary<Substring, Substring>) async throws -> Response {
        let parameters = try Self.counts(query, allowed: ["index", "size"])
        guard let index = parameters["index"] else {
            throw Problem.invalid("index is required: the leaf's index, from 0")
        }
        do {
            let store = service.store
            let checkpoint = try await TransparencyLog.checkpoint(size: parameters["size"], in: store)
            guard index < checkpoint.size else {
                throw AuditError(
                    code: .auditNoCheckpoint,
                    message: "leaf \(index) is not in the checkpoint of \(checkpoint.size) rows")
            }
            let proof = try await AuditTree(store: store).inclusionProof(index: index, size: checkpoint.size)
            let text = TLogProof(index: UInt64(index), proof: proof, signedCheckpoint: checkpoint.note).text
            return Self.body(200, contentType: Self.plainText, Array(text.utf8))
        } catch {
            return Self.problem(Self.storageProblem(error))
        }
    }

    /// `GET /v1/audit/consistency?from=M&to=N`: the proof that the tree of M rows is a prefix of
    /// the stored checkpoint of N rows (the newest when N is not given), one base64 hash a line.
    func auditConsistency(_ query: FlatDictionary<Substring, Substring>) async throws -> Response {
        let parameters = try Self.counts(query, allowed: ["from", "to"])
        guard let from = parameters["from"], from >= 1 else {
            throw Problem.invalid("from is required: the older tree's size, 1 or more")
        }
        do {
            let store = service.store
            let checkpoint = try await TransparencyLog.checkpoint(size: parameters["to"], in: store)
            guard from <= checkpoint.size else {
                throw AuditError(
                    code: .auditNoCheckpoint,
                    message: "the checkpoint of \(checkpoint.size) rows does not extend a tree of \(from)")
            }
            let proof = try await AuditTree(store: store).consistencyProof(from: from, to: checkpoint.size)
            let text = proof.map { Data($0).base64EncodedString() + "\n" }.joined()
            return Self.body(200, contentType: Self.plainText, Array(text.utf8))
        } catch {
            return Self.problem(Self.storageProblem(error))
        }
    }

    /// Query parameters that are counts (decimal, 0 or more), each at most once; others refused.
    static func counts(_ query: FlatDictionary<Substring, Substring>, allowed: Set<String>) throws -> [String: Int64] {
        var values: [String: Int64] = [:]
        for (key, value) in query {
            let name = String(key)
            guard allowed.contains(name) else {
                throw Problem.invalid(
                    "\(SafeText.escaped(String(name.prefix(40)))) is not a parameter of this path (\(allowed.sorted().joined(separator: ", ")))"
                )
            }
            guard values[name] == nil else { throw Problem.invalid("\(name) is given twice") }
            guard value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), value == "0" || !value.hasPrefix("0"),
                let number = Int64(value)
            else {
                throw Problem.invalid("\(name) must be a decimal count without leading zeros")
            }
            if name == "size" || name == "to", number < 1 {
                throw Problem.invalid("\(name) must be 1 or more: a checkpoint's tree size")
            }
            values[name] = number
        }
        return values
    }
}

import Crypto
import Foundation
import NIOConcurrencyHelpers

/// An honest C2SP tlog-witness (`POST /add-checkpoint`): it checks the log's signature with
/// the keys it was given, the old size against the size it last cosigned for that origin,
/// and the consistency proof from that tree to the new one; it refuses a rollback or a fork
/// (409, 422) and cosigns with `cosignature/v1`. It remembers the latest cosigned tree of
/// each origin for as long as it runs.
public final class WitnessServer: Sendable {
    /// The witness's name in its cosignature lines.
    public static let name = "tokenctl-sandbox/witness"

    private let key: CosignerKey
    private let logs: [TrustedLogKey]
    private let latest = NIOLockedValueBox<[String: (size: UInt64, root: [UInt8])]>([:])
    private let clock: @Sendable () -> Date

    /// - Parameter logs: the log keys it cosigns for, by origin.
    public init(logs: [TrustedLogKey], clock: @escaping @Sendable () -> Date = { Date() }) {
        key = CosignerKey(name: Self.name)
        self.logs = logs
        self.clock = clock
    }

    /// The witness's verifier key, `NAME+HASH+KEY` (algorithm 0x04), for `audit.witnesses`.
    public var verifierKey: String { key.verifierKey }

    /// The size it last cosigned for `origin` (0 before the first).
    public func cosignedSize(origin: String) -> UInt64 {
        latest.withLockedValue { $0[origin]?.size ?? 0 }
    }

    func handle(_ request: RecordedRequest) -> SandboxReply? {
        guard request.path == "/add-checkpoint" else { return nil }
        guard request.method == "POST" else { return Self.text(405, "add-checkpoint is a POST\n") }
        guard let submission = WitnessSubmission(request.body) else {
            return Self.text(400, "not an add-checkpoint request\n")
        }
        let keys = logs.filter { $0.name == submission.origin }
        guard !keys.isEmpty else { return Self.text(404, "unknown log origin\n") }
        guard keys.contains(where: { $0.signed(submission) }) else {
            return Self.text(403, "no signature by a trusted key of this log verifies\n")
        }
        guard submission.oldSize <= submission.size else {
            return Self.text(400, "the old size is larger than the checkpoint's\n")
        }
        // The check against the latest tree and its update are one step under the lock.
        return latest.withLockedValue { latest -> SandboxReply in
            // Before its first cosignature, the witness holds the empty tree.
            let held = latest[submission.origin] ?? (size: 0, root: Self.emptyTreeRoot)
            guard submission.oldSize == held.size else {
                return .respond(status: 409, headers: [("Content-Type", "text/x.tlog.size")], body: "\(held.size)\n")
            }
            if submission.oldSize == submission.size {
                guard submission.root == held.root else {
                    return .respond(
                        status: 409, headers: [("Content-Type", "text/x.tlog.size")], body: "\(held.size)\n")
                }
                guard submission.proof.isEmpty else {
                    return Self.text(400, "a proof between equal sizes must be empty\n")
                }
            } else if submission.oldSize == 0 {
                guard submission.proof.isEmpty else {
                    return Self.text(422, "a proof from the empty tree must be empty\n")
                }
            } else {
                guard
                    ConsistencyCheck.holds(
                        first: submission.oldSize, second: submission.size, firstHash: held.root,
                        secondHash: submission.root, proof: submission.proof)
                else {
                    return Self.text(422, "the consistency proof does not verify\n")
                }
            }
            latest[submission.origin] = (submission.size, submission.root)
            let time = UInt64(max(0, clock().timeIntervalSince1970))
            return .respond(
                status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")],
                body: key.cosign(submission.text, time: time))
        }
    }

    /// The head of the tree of no leaves: SHA-256 of nothing (RFC 9162 §2.1.1).
    static let emptyTreeRoot = Array(SHA256.hash(data: [UInt8]()))

    private static func text(_ status: Int, _ body: String) -> SandboxReply {
        .respond(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: body)
    }
}

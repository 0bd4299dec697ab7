import ErrorCodes
import Foundation
import HTTPTransport
import WalletModel

/// A witness of `audit.witnesses`: its submission prefix and the key it cosigns with.
public struct Witness: Sendable {
    public let url: String
    public let verifier: Cosignature.Verifier

    public init(url: String, verifier: Cosignature.Verifier) {
        self.url = url
        self.verifier = verifier
    }
}

/// How a publication reaches the database: the CLI's open store, or the service's workers.
public protocol AuditStoreAccess: Sendable {
    func run<T: Sendable>(_ body: @escaping @Sendable (any TokenStore) throws -> T) async throws -> T
}

/// Sends a signed checkpoint to each witness with C2SP tlog-witness's `add-checkpoint`
/// (DESIGN §9): the old size is the one the witness last cosigned here (0 before its first),
/// with the consistency proof from it; a 409 is asked again once from the size the witness
/// names; each cosignature is verified with the witness's key and stored.
public struct WitnessPublisher: Sendable {
    /// How one request went, for the service's `tokenctl_audit_witness_requests_total`.
    public enum RequestResult: String, Sendable, CaseIterable {
        case cosigned, conflict, refused, failed
    }

    /// One witness's outcome: the stored cosignature, or why there is none.
    public struct Outcome: Sendable {
        public let witness: Witness
        public let result: Result<StoredCosignature, AuditError>
    }

    let witnesses: [Witness]
    let transport: any HTTPTransport
    let onRequest: @Sendable (RequestResult) -> Void

    /// Asked again from the size a 409 names at most this many times.
    static let conflictRetries = 2

    public init(witnesses: [Witness], transport: any HTTPTransport, onRequest: @escaping @Sendable (RequestResult) -> Void = { _ in }) {
        self.witnesses = witnesses
        self.transport = transport
        self.onRequest = onRequest
    }

    /// Publishes `checkpoint` (its signed note as stored) to every witness, one after the other.
    public func publish(_ checkpoint: StoredCheckpoint, through access: some AuditStoreAccess) async -> [Outcome] {
        var outcomes: [Outcome] = []
        for witness in witnesses {
            do {
                outcomes.append(Outcome(witness: witness, result: .success(try await publish(checkpoint, to: witness, through: access))))
            } catch let error as AuditError {
                outcomes.append(Outcome(witness: witness, result: .failure(error)))
            } catch {
                let code = (error as? any CodedError)?.code ?? .storageIO
                outcomes.append(Outcome(witness: witness, result: .failure(AuditError(code: code, message: "\(error)"))))
            }
        }
        return outcomes
    }

    private func publish(_ signed: StoredCheckpoint, to witness: Witness, through access: some AuditStoreAccess) async throws -> StoredCosignature {
        let key = witness.verifier.verifierKey
        var checkpoint = signed
        let latest = try await access.run { store in try store.latestCosignature(witness: key) }
        var old = latest?.size ?? 0
        for _ in 0...Self.conflictRetries {
            if old > checkpoint.size {
                // The witness holds a larger tree than this checkpoint: a newer checkpoint of
                // this log (another process or host signed and published it first), or a log
                // cut or replaced since. The newest stored checkpoint tells which.
                let newest = try await access.run { store in try store.storedCheckpoint(size: nil) }
                guard let newest, newest.size >= old else {
                    throw refused(witness, "it cosigned a tree of \(old) rows, and this log has a checkpoint of only \(newest?.size ?? checkpoint.size): the log was cut or replaced by an older copy since")
                }
                checkpoint = newest
            }
            let size = checkpoint.size
            if let same = try await access.run({ store in try store.storedCosignatures(size: size).first { $0.witness == key } }) { return same }
            guard let body = TransparencyLog.checkpoint(in: checkpoint.note)?.text else {
                throw AuditError(code: .auditInconsistent, message: "the stored checkpoint of \(checkpoint.size) rows is not a checkpoint")
            }
            let (from, to) = (old, checkpoint.size)
            let proof = from == 0 || from == to ? [] : try await access.run { store in try AuditTree(store: store).consistencyProof(from: from, to: to) }
            let request = HTTPRequest(
                method: "POST", url: witness.url + WitnessExchange.path, headers: [("Content-Type", "text/plain; charset=utf-8")],
                body: WitnessExchange.request(oldSize: UInt64(from), proof: proof, note: checkpoint.note)
            )
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                onRequest(.failed)
                throw AuditError(code: .auditWitnessUnreachable, message: "witness \(witness.url): \(error.description); publish again with tokenctl audit checkpoint --publish")
            }
            switch WitnessExchange.answer(status: response.status, body: response.body, checkpoint: body, witness: witness.verifier) {
            case .cosigned(let signature, let time):
                onRequest(.cosigned)
                let stored = StoredCosignature(size: checkpoint.size, witness: key, line: "— \(signature.name) \(signature.base64)", time: Int64(time))
                try await access.run { store in try store.storeCosignature(stored) }
                return stored
            case .conflict(let size):
                onRequest(.conflict)
                guard Int64(exactly: size) != from else {
                    throw refused(witness, "it holds another tree head of \(size) rows than this log's: the log forked (was rewritten) below what the witness cosigned")
                }
                old = Int64(exactly: size) ?? Int64.max
            case .refused(let status, let reason):
                guard status < 500 else {
                    onRequest(.failed)
                    throw AuditError(code: .auditWitnessUnreachable, message: "witness \(witness.url) answered \(status); publish again with tokenctl audit checkpoint --publish")
                }
                onRequest(.refused)
                throw refused(witness, "\(reason) (HTTP \(status))")
            }
        }
        throw refused(witness, "it named another tree size at each of \(Self.conflictRetries + 1) requests")
    }

    private func refused(_ witness: Witness, _ reason: String) -> AuditError {
        AuditError(code: .auditWitnessRefused, message: "witness \(witness.url) refused the checkpoint: \(reason)")
    }
}

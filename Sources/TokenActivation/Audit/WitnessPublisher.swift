import ErrorCodes
import Foundation
import HTTPTransport
import TransparencyLog
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
    /// One per witness, in the same order: a transport sends one request at a time, and the
    /// witnesses are asked side by side.
    let transports: [any HTTPTransport]
    let onRequest: @Sendable (RequestResult) -> Void

    /// Asked again from the size a 409 names at most this many times.
    static let conflictRetries = 2

    /// - Parameter transport: makes each witness's transport.
    public init(
        witnesses: [Witness], transport: () throws -> any HTTPTransport,
        onRequest: @escaping @Sendable (RequestResult) -> Void = { _ in }
    ) rethrows {
        self.witnesses = witnesses
        self.transports = try witnesses.map { _ in try transport() }
        self.onRequest = onRequest
    }

    /// One transport for every witness (their requests then go one at a time).
    public init(
        witnesses: [Witness], transport: any HTTPTransport,
        onRequest: @escaping @Sendable (RequestResult) -> Void = { _ in }
    ) {
        self.init(witnesses: witnesses, transport: { transport }, onRequest: onRequest)
    }

    /// Publishes `checkpoint` (its signed note as stored) to every witness, side by side:
    /// each is asked in this run, also one that cosigned this size before (an
    /// `add-checkpoint` from the size it holds is cheap, and it is how a rollback shows).
    /// With `deadline`, a witness that has not answered by then is a failure named so.
    public func publish(
        _ checkpoint: StoredCheckpoint, in store: any TransparencyLogStore, deadline: ContinuousClock.Instant? = nil
    ) async -> [Outcome] {
        await withTaskGroup(of: (Int, Outcome?).self) { group in
            for (index, witness) in witnesses.enumerated() {
                let transport = transports[index]
                group.addTask {
                    (index, await outcome(of: checkpoint, to: witness, in: store, transport: transport))
                }
            }
            if let deadline {
                group.addTask {
                    try? await Task.sleep(until: deadline)
                    return (-1, nil)
                }
            }
            var outcomes: [Outcome?] = Array(repeating: nil, count: witnesses.count)
            for await (index, outcome) in group {
                guard index >= 0 else { break }
                outcomes[index] = outcome
                if !outcomes.contains(where: { $0 == nil }) { break }
            }
            group.cancelAll()
            return zip(witnesses, outcomes).map { witness, outcome in
                outcome
                    ?? Outcome(
                        witness: witness,
                        result: .failure(
                            AuditError(
                                code: .auditWitnessUnreachable,
                                message: "witness \(witness.url) did not answer before the service's stop deadline")))
            }
        }
    }

    private func outcome(
        of checkpoint: StoredCheckpoint, to witness: Witness, in store: any TransparencyLogStore,
        transport: any HTTPTransport
    ) async -> Outcome {
        do {
            return Outcome(
                witness: witness,
                result: .success(try await publish(checkpoint, to: witness, in: store, transport: transport)))
        } catch let error as AuditError {
            return Outcome(witness: witness, result: .failure(error))
        } catch {
            let code = (error as? any CodedError)?.code ?? .storageIO
            return Outcome(
                witness: witness,
                result: .failure(
                    AuditError(
                        code: code,
                        message: "witness \(witness.url): \((error as? any CodedError)?.message ?? "\(error)")")))
        }
    }

    private func publish(
        _ signed: StoredCheckpoint, to witness: Witness, in store: any TransparencyLogStore,
        transport: any HTTPTransport
    ) async throws -> StoredCosignature {
        let key = witness.verifier.verifierKey
        let origin = signed.origin
        var checkpoint = signed
        let latest = try await store.latestCosignature(witness: key, origin: origin)
        var old = latest?.size ?? 0
        for _ in 0...Self.conflictRetries {
            if old > checkpoint.size {
                // The witness holds a larger tree than this checkpoint: a newer checkpoint of
                // this log (another process or host signed and published it first), or a log
                // cut or replaced since. The newest stored checkpoint tells which.
                let newest = try await store.storedCheckpoint(size: nil, origin: origin)
                guard let newest, newest.size >= old else {
                    throw refused(
                        witness,
                        "it cosigned a tree of \(old) rows, and this log has a checkpoint of only \(newest?.size ?? checkpoint.size): the log was cut or replaced by an older copy since"
                    )
                }
                checkpoint = newest
            }
            guard let body = TransparencyLog.checkpoint(in: checkpoint.note)?.text else {
                throw AuditError(
                    code: .auditInconsistent,
                    message: "the stored checkpoint of \(checkpoint.size) rows is not a checkpoint")
            }
            let (from, to) = (old, checkpoint.size)
            let proof =
                from == 0 || from == to
                ? []
                : try await AuditTree(store: store).consistencyProof(from: from, to: to)
            let request = HTTPRequest(
                method: "POST", url: witness.url + WitnessExchange.path,
                headers: [("Content-Type", "text/plain; charset=utf-8")],
                body: WitnessExchange.request(oldSize: UInt64(from), proof: proof, note: checkpoint.note)
            )
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                onRequest(.failed)
                throw AuditError(
                    code: .auditWitnessUnreachable,
                    message: "witness \(witness.url) could not be reached: \(error.words)")
            }
            switch WitnessExchange.answer(
                status: response.status, body: response.body, checkpoint: body, witness: witness.verifier)
            {
            case .cosigned(let signature, let time):
                onRequest(.cosigned)
                try Self.checkTime(time, of: witness)
                let stored = StoredCosignature(
                    origin: origin, size: checkpoint.size, witness: key,
                    line: "— \(signature.name) \(signature.base64)", time: Int64(time))
                try await store.storeCosignature(stored)
                return stored
            case .conflict(let size):
                onRequest(.conflict)
                guard Int64(exactly: size) != from else {
                    throw refused(
                        witness,
                        "it holds another tree head of \(size) rows than this log's: the log forked (was rewritten) below what the witness cosigned"
                    )
                }
                old = Int64(exactly: size) ?? Int64.max
            case .refused(let status, let reason):
                guard status < 500 else {
                    onRequest(.failed)
                    throw AuditError(
                        code: .auditWitnessUnreachable, message: "witness \(witness.url) answered HTTP \(status)")
                }
                onRequest(.refused)
                if status == 403 || status == 404 || reason.hasPrefix(WitnessExchange.otherKeyReason) {
                    throw AuditError(
                        code: .auditNotConfigured,
                        message:
                            "witness \(witness.url) is not set up for this log: \(reason); configure the log's origin and verifier key on the witness, or correct its verifier-key in audit.witnesses"
                    )
                }
                throw refused(witness, "\(reason) (HTTP \(status))")
            }
        }
        throw refused(witness, "it named another tree size at each of \(Self.conflictRetries + 1) requests")
    }

    /// A cosignature's time may be at most this far ahead of this host's clock: a later one
    /// would be refused by strict verifiers, so it is not stored.
    static let maximumClockSkewSeconds: UInt64 = 300

    static func checkTime(
        _ time: UInt64, of witness: Witness, now: UInt64 = UInt64(Date().timeIntervalSince1970)
    ) throws {
        guard time <= now + maximumClockSkewSeconds else {
            throw AuditError(
                code: .auditWitnessUnreachable,
                message:
                    "witness \(witness.url) dated its cosignature \(time - now) s in the future (more than \(maximumClockSkewSeconds) s); it was not stored: check the witness's clock"
            )
        }
    }

    private func refused(_ witness: Witness, _ reason: String) -> AuditError {
        AuditError(code: .auditWitnessRefused, message: "witness \(witness.url) refused the checkpoint: \(reason)")
    }
}

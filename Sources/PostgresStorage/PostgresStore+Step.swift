import Foundation
import PostgresNIO
import WalletModel

/// The records a query names, each with the lease on it, and the id the new attempt is
/// audited under.
struct AttemptResolution: Sendable {
    public var attemptID: Int64
    public var passes: [(pass: PassRecord, lease: AttemptLease?)]
}

/// The lease on an attempt in flight.
struct AttemptLease: Sendable, Equatable {
    public var attemptID: Int64
    public var requestID: String
    public var deeplinkHash: String
    public var hostID: String
    public var pid: Int32
    public var processStart: String
    /// Not yet expired, by the server's clock.
    public var isLive: Bool
}

/// What one call of `tokenctl_step` answered: a status per change, a resolution per read.
struct StepAnswer: Sendable {
    var statuses: [AttemptChangeStatus]
    var resolutions: [AttemptResolution]
}

extension PostgresStore {
    /// Writes `changes` and then reads `reads`, in one round trip: `tokenctl_step` applies
    /// the changes in one transaction and commits it before it answers (so an answer never
    /// names a write that could still be lost), then resolves the reads on what it committed.
    /// A deadlock between two hosts' groups is tried again. A unique violation (two changes
    /// closing the same attempt that holds no lease, from a copied database, whose "finished"
    /// rows the audit refuses twice) wrote nothing: every change is answered "conflict" and
    /// the reads are read again on their own.
    func step(_ changes: [AttemptChange], reads: [PassQuery], genesis: String) async throws -> StepAnswer {
        let encoder = JSONEncoder()
        let changeText = String(decoding: try encoder.encode(changes), as: UTF8.self)
        let readText = String(decoding: try encoder.encode(reads.map(StepRead.init)), as: UTF8.self)
        var tries = 0
        while true {
            do {
                let rows = try await query(
                    "CALL tokenctl_step(\(changeText)::jsonb, \(readText)::jsonb, \(genesis), NULL)")
                let text = try rows.first?.decode(String.self) ?? ""
                let answer: StepAnswerText
                do {
                    answer = try JSONDecoder().decode(StepAnswerText.self, from: Data(text.utf8))
                } catch {
                    throw StorageError(
                        .storageCorrupt,
                        "tokenctl_step answered what this tokenctl cannot read (\(error)); run `tokenctl db migrate`")
                }
                guard answer.statuses.count == changes.count, answer.reads.count == reads.count else {
                    throw StorageError(
                        .storageCorrupt,
                        "tokenctl_step answered \(answer.statuses.count) statuses for \(changes.count) changes and \(answer.reads.count) reads for \(reads.count)"
                    )
                }
                return StepAnswer(statuses: answer.statuses, resolutions: answer.reads.map(\.resolution))
            } catch
                where [State.deadlock, State.serializationFailure].contains(Self.sqlState(error) ?? "") && tries < 5
            {
                tries += 1
            } catch  where Self.sqlState(error) == State.uniqueViolation && !changes.isEmpty {
                let read = try await step([], reads: reads, genesis: genesis)
                return StepAnswer(statuses: changes.map { _ in .conflict }, resolutions: read.resolutions)
            }
        }
    }
}

/// A read as `tokenctl_step` takes it.
private struct StepRead: Encodable {
    var serial: String
    var passType: String?
    var device: String?

    init(_ query: PassQuery) {
        serial = query.serialNumber
        passType = query.passTypeIdentifier
        device = query.device
    }
}

/// `tokenctl_step`'s answer (migration v6): {"statuses": ["ok", …], "reads": [{"attempt": id,
/// "passes": [pass, …]}, …]}, every value decoded by its name; a state or status this binary
/// does not know is an error, never a default.
private struct StepAnswerText: Decodable {
    var statuses: [AttemptChangeStatus]
    var reads: [Read]

    struct Read: Decodable {
        var attempt: Int64
        var passes: [Pass]

        var resolution: AttemptResolution {
            AttemptResolution(attemptID: attempt, passes: passes.map { ($0.record, $0.lease?.value) })
        }
    }

    struct Pass: Decodable {
        var passType: String
        var serial: String
        var token: String
        var state: PassState
        var device: String?
        var cardSuffix: String?
        var lease: Lease?

        enum CodingKeys: String, CodingKey {
            case passType, serial, token, state, device, cardSuffix, lease
        }

        init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            passType = try values.decode(String.self, forKey: .passType)
            serial = try values.decode(String.self, forKey: .serial)
            token = try values.decode(String.self, forKey: .token)
            let stateName = try values.decode(String.self, forKey: .state)
            guard let state = PassState(rawValue: stateName) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .state, in: values, debugDescription: "unknown pass state \(stateName)")
            }
            self.state = state
            device = try values.decodeIfPresent(String.self, forKey: .device)
            cardSuffix = try values.decodeIfPresent(String.self, forKey: .cardSuffix)
            lease = try values.decodeIfPresent(Lease.self, forKey: .lease)
        }

        var record: PassRecord {
            PassRecord(
                passTypeIdentifier: passType, serialNumber: serial, deviceAccountIdentifier: token, state: state,
                device: device, cardSuffix: cardSuffix)
        }
    }

    struct Lease: Decodable {
        var attempt: Int64
        var request: String
        var deeplink: String
        var host: String
        var pid: Int32
        var processStart: String
        var live: Bool

        var value: AttemptLease {
            AttemptLease(
                attemptID: attempt, requestID: request, deeplinkHash: deeplink, hostID: host, pid: pid,
                processStart: processStart, isLive: live)
        }
    }
}

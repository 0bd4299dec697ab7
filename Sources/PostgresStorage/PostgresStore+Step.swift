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
    func step(_ changes: [AttemptChange], reads: [PassQuery], genesis: String) throws -> StepAnswer {
        let encoder = JSONEncoder()
        let changeText = String(decoding: try encoder.encode(changes), as: UTF8.self)
        let readText = String(decoding: try encoder.encode(reads.map(StepRead.init)), as: UTF8.self)
        var tries = 0
        while true {
            do {
                let rows = try query("CALL tokenctl_step(\(changeText)::jsonb, \(readText)::jsonb, \(genesis), NULL)")
                let text = try rows.first?.decode(String.self) ?? ""
                let answer = try JSONDecoder().decode(StepAnswerText.self, from: Data(text.utf8))
                guard answer.statuses.count == changes.count, answer.reads.count == reads.count else {
                    throw StorageError(.storageCorrupt, "tokenctl_step answered \(answer.statuses.count) statuses for \(changes.count) changes and \(answer.reads.count) reads for \(reads.count)")
                }
                return StepAnswer(statuses: answer.statuses, resolutions: answer.reads.map(\.resolution))
            } catch where [State.deadlock, State.serializationFailure].contains(Self.sqlState(error) ?? "") && tries < 5 {
                tries += 1
            } catch where Self.sqlState(error) == State.uniqueViolation && !changes.isEmpty {
                let read = try step([], reads: reads, genesis: genesis)
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

/// `tokenctl_step`'s answer: {"statuses": ["ok", …], "reads": [[attempt id, [pass, …]], …]},
/// each pass an array of its columns and its lease's (nulls without one).
private struct StepAnswerText: Decodable {
    var statuses: [AttemptChangeStatus]
    var reads: [Read]

    struct Read: Decodable {
        var resolution: AttemptResolution

        init(from decoder: any Decoder) throws {
            var cells = try decoder.unkeyedContainer()
            resolution = AttemptResolution(attemptID: try cells.decode(Int64.self), passes: [])
            var passes = try cells.nestedUnkeyedContainer()
            while !passes.isAtEnd {
                resolution.passes.append(try passes.decode(PassRow.self).value)
            }
        }
    }

    struct PassRow: Decodable {
        var value: (pass: PassRecord, lease: AttemptLease?)

        init(from decoder: any Decoder) throws {
            var cells = try decoder.unkeyedContainer()
            let pass = PassRecord(
                passTypeIdentifier: try cells.decode(String.self), serialNumber: try cells.decode(String.self),
                deviceAccountIdentifier: try cells.decode(String.self),
                state: PassState(rawValue: try cells.decode(String.self)) ?? .requiresActivation,
                device: try cells.decode(String?.self), cardSuffix: try cells.decode(String?.self)
            )
            var lease: AttemptLease?
            if let attempt = try cells.decode(Int64?.self) {
                lease = AttemptLease(
                    attemptID: attempt, requestID: try cells.decode(String.self), deeplinkHash: try cells.decode(String.self),
                    hostID: try cells.decode(String.self), pid: try cells.decode(Int32.self), processStart: try cells.decode(String.self),
                    isLive: try cells.decode(Bool.self)
                )
            }
            value = (pass, lease)
        }
    }
}

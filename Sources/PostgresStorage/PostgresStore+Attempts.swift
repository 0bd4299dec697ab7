import Foundation
import PostgresNIO
import WalletModel

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

/// The records a query names, each with the lease on it, and the id the new attempt is
/// audited under, read in one round trip.
struct AttemptResolution: Sendable {
    public var attemptID: Int64
    public var passes: [(pass: PassRecord, lease: AttemptLease?)]
}

/// One audit row as `tokenctl_apply` takes it (JSON): its columns, and its hashed text after
/// the previous hash, which the server fills in under the chain lock.
struct AuditRowValues: Encodable, Sendable, Equatable {
    var attempt: Int64
    var event: String
    var at: String
    var request: String
    var serial: String
    var passType: String?
    var token: String?
    var device: String?
    var deeplink: String
    var pid: Int32?
    var ownerStart: String?
    var outcome: String?
    var error: String?
    var http: Int?
    var last4: String?
    var comment: String?
    var latency: Int?
    /// The row's hashed text after its previous-hash member.
    var rest: String

    init(_ row: AuditRow) {
        let text = row.hashedText(previous: "")
        attempt = row.attemptID
        event = row.event.rawValue
        at = row.at.iso8601
        request = row.requestID
        serial = row.serialNumber
        passType = row.passTypeIdentifier
        token = row.tokenUniqueReference
        device = row.device
        deeplink = row.deeplinkHash
        pid = row.ownerPID
        ownerStart = row.ownerStart
        outcome = row.outcome
        error = row.errorCode
        http = row.httpStatus
        last4 = row.cardLast4Digits
        comment = row.comment
        latency = row.latencyMilliseconds
        rest = String(decoding: text[Self.previousPrefixLength...], as: UTF8.self)
    }

    /// `{"previous": ""`: the hashed text before an empty previous hash's closing quote.
    static let previousPrefixLength = "{\"previous\": \"\"".utf8.count
}

/// What one write of an activation changes, applied whole or not at all.
struct AttemptChange: Encodable, Sendable {
    public struct StateMove: Encodable, Sendable {
        public var serial: String
        public var passType: String
        public var token: String
        /// The state the pass must be in; otherwise the change is a conflict.
        public var from: String
        public var to: String

        public init(serial: String, passType: String, token: String, from: String, to: String) {
            self.serial = serial
            self.passType = passType
            self.token = token
            self.from = from
            self.to = to
        }
    }

    public struct Lease: Encodable, Sendable {
        public var serial: String
        public var token: String
        public var attempt: Int64
        public var request: String
        public var deeplink: String
        public var host: String
        public var pid: Int32
        public var processStart: String
        public var milliseconds: Int

        public init(serial: String, token: String, attempt: Int64, request: String, deeplink: String, host: String, pid: Int32, processStart: String, milliseconds: Int) {
            self.serial = serial
            self.token = token
            self.attempt = attempt
            self.request = request
            self.deeplink = deeplink
            self.host = host
            self.pid = pid
            self.processStart = processStart
            self.milliseconds = milliseconds
        }
    }

    public var states: [StateMove] = []
    /// Leases that must exist, removed (the attempt they hold is finished).
    public var dropLeases: [Int64] = []
    public var lease: Lease?
    public var rows: [AuditRowValues] = []
    /// A finish: when this attempt has its "finished" row already, the change is done.
    public var once: Int64?

    public init(states: [StateMove] = [], dropLeases: [Int64] = [], lease: Lease? = nil, rows: [AuditRowValues] = [], once: Int64? = nil) {
        self.states = states
        self.dropLeases = dropLeases
        self.lease = lease
        self.rows = rows
        self.once = once
    }
}

enum AttemptChangeStatus: String, Sendable {
    case ok
    /// What the change expected no longer holds: read again and decide again.
    case conflict
    /// Applied before (a finish sent again after a lost answer).
    case done
}

extension PostgresStore {
    /// The records of a query with their leases, and a new attempt id, in one round trip.
    func resolveAttempt(serialNumber: String, passTypeIdentifier: String?, device: String?) throws -> AttemptResolution {
        let rows = try query("SELECT * FROM tokenctl_resolve(\(serialNumber), \(passTypeIdentifier)::text, \(device)::text)")
        var resolution = AttemptResolution(attemptID: 0, passes: [])
        for row in rows {
            let cells = row.makeRandomAccess()
            resolution.attemptID = try cells[0].decode(Int64.self)
            guard let type = try cells[1].decode(String?.self) else { continue }
            let pass = PassRecord(
                passTypeIdentifier: type, serialNumber: try cells[2].decode(String.self), deviceAccountIdentifier: try cells[3].decode(String.self),
                state: PassState(rawValue: try cells[4].decode(String.self)) ?? .requiresActivation, device: try cells[5].decode(String?.self),
                cardSuffix: try cells[6].decode(String?.self)
            )
            var lease: AttemptLease?
            if let attempt = try cells[7].decode(Int64?.self) {
                lease = AttemptLease(
                    attemptID: attempt, requestID: try cells[8].decode(String.self), deeplinkHash: try cells[9].decode(String.self),
                    hostID: try cells[10].decode(String.self), pid: try cells[11].decode(Int32.self), processStart: try cells[12].decode(String.self),
                    isLive: try cells[13].decode(Bool.self)
                )
            }
            resolution.passes.append((pass, lease))
        }
        return resolution
    }

    /// The attempt left open on a pass with no lease (a database copied from SQLite, where
    /// the owner was a process): its "started" row without a "finished" one.
    func openAttemptWithoutLease(serialNumber: String, tokenUniqueReference: String) throws -> (attemptID: Int64, requestID: String, deeplinkHash: String)? {
        let rows = try query("""
            SELECT s.attempt_id, s.request_id, s.deeplink_hash FROM audit_row s
            WHERE s.event = 'started' AND s.serial_number = \(serialNumber) AND s.token_unique_reference = \(tokenUniqueReference)
              AND NOT EXISTS (SELECT 1 FROM audit_row f WHERE f.attempt_id = s.attempt_id AND f.event = 'finished')
            ORDER BY s.seq DESC LIMIT 1
            """)
        guard let row = rows.first else { return nil }
        return try row.decode((Int64, String, String).self)
    }

    /// Applies changes in one round trip and one transaction (tokenctl_apply); each answers
    /// its status. A deadlock between two hosts' groups is tried again.
    func apply(_ changes: [AttemptChange], genesis: String) throws -> [AttemptChangeStatus] {
        let body = String(decoding: try JSONEncoder().encode(changes), as: UTF8.self)
        var attempt = 0
        while true {
            do {
                let rows = try query("SELECT tokenctl_apply(\(body)::jsonb, \(genesis))::text")
                let text = try rows.first?.decode(String.self) ?? "[]"
                let names = try JSONDecoder().decode([String].self, from: Data(text.utf8))
                return names.map { AttemptChangeStatus(rawValue: $0) ?? .conflict }
            } catch where [State.deadlock, State.serializationFailure].contains(Self.sqlState(error) ?? "") && attempt < 5 {
                attempt += 1
            } catch where Self.sqlState(error) == State.uniqueViolation {
                // Two hosts leasing one pass at once: the loser reads again.
                return changes.map { _ in .conflict }
            }
        }
    }

    /// The key of the deeplink hash.
    public func deeplinkHashKey() throws -> [UInt8] {
        let rows = try query("SELECT value FROM tokenctl_metadata WHERE key = 'deeplink-hash-key'")
        guard let buffer = try rows.first?.decode(ByteBuffer.self) else {
            throw StorageError(.storageCorrupt, "the database \(options.displayURL) has no deeplink hash key; it was not made by tokenctl db migrate")
        }
        return Array(buffer.readableBytesView)
    }
}

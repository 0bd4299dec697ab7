import Foundation
import PostgresNIO
import WalletModel

/// One audit row as `tokenctl_step` takes it (JSON): its columns, and its hashed text after
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

    /// The pass this change moves, from the state it must be in (else a conflict).
    public var state: StateMove?
    /// Leases that must exist, removed (the attempt they hold is finished).
    public var dropLeases: [Int64] = []
    public var lease: Lease?
    public var rows: [AuditRowValues] = []

    public init(state: StateMove? = nil, dropLeases: [Int64] = [], lease: Lease? = nil, rows: [AuditRowValues] = []) {
        self.state = state
        self.dropLeases = dropLeases
        self.lease = lease
        self.rows = rows
    }
}

enum AttemptChangeStatus: String, Sendable, Decodable {
    case ok
    /// What the change expected no longer holds: read again and decide again.
    case conflict
    /// Applied before (sent again after its answer was lost with a connection).
    case done
}

extension PostgresStore {
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

    /// The key of the deeplink hash.
    public func deeplinkHashKey() throws -> [UInt8] {
        let rows = try query("SELECT value FROM tokenctl_metadata WHERE key = 'deeplink-hash-key'")
        guard let buffer = try rows.first?.decode(ByteBuffer.self) else {
            throw StorageError(.storageCorrupt, "the database \(options.displayURL) has no deeplink hash key; it was not made by tokenctl db migrate")
        }
        return Array(buffer.readableBytesView)
    }
}

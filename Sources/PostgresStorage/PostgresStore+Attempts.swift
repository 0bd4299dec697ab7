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
    /// A pass moved: the state it must be in and the lease it must hold (else the change is a
    /// conflict), the state it moves to and the lease it holds then.
    struct PassMove: Encodable, Sendable {
        var serial: String
        var passType: String
        var token: String
        var from: String
        var to: String
        /// The attempt whose lease the pass must hold while activating (none: no lease).
        var holder: Int64?
        /// The lease the pass holds afterwards (none: released).
        var lease: Lease?
    }

    /// Who owns an attempt in flight, and for how long from the server's clock.
    struct Lease: Encodable, Sendable {
        var attempt: Int64
        var request: String
        var deeplink: String
        var host: String
        var pid: Int32
        var processStart: String
        var milliseconds: Int
    }

    var pass: PassMove?
    var rows: [AuditRowValues] = []
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
    func openAttemptWithoutLease(
        serialNumber: String, tokenUniqueReference: String
    ) async throws -> (attemptID: Int64, requestID: String, deeplinkHash: String)? {
        let rows = try await query(
            """
            SELECT s.attempt_id, s.request_id, s.deeplink_hash FROM audit_row s
            WHERE s.event = 'started' AND s.serial_number = \(serialNumber) AND s.token_unique_reference = \(tokenUniqueReference)
              AND NOT EXISTS (SELECT 1 FROM audit_row f WHERE f.attempt_id = s.attempt_id AND f.event = 'finished')
            ORDER BY s.seq DESC LIMIT 1
            """)
        guard let row = rows.first else { return nil }
        return try row.decode((Int64, String, String).self)
    }

    /// The key of the deeplink hash.
    public func deeplinkHashKey() async throws -> [UInt8] {
        let rows = try await query("SELECT value FROM tokenctl_metadata WHERE key = 'deeplink-hash-key'")
        guard let buffer = try rows.first?.decode(ByteBuffer.self) else {
            throw StorageError(
                .storageCorrupt,
                "the database \(options.displayURL) has no deeplink hash key; it was not made by tokenctl db migrate")
        }
        return Array(buffer.readableBytesView)
    }
}

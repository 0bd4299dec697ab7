import Foundation
import NIOCore
import PostgresNIO
import Storage

extension PostgresStore {
    /// Loads a whole database's wallet and audit (`tokenctl db copy --to postgres://…`) in one
    /// transaction: the target must hold neither. Audit rows keep their sequence numbers and
    /// hashes, the deeplink hash key is the source's, and new attempt ids continue after the
    /// largest copied one.
    /// - Throws: `storage.targetNotEmpty` when the target holds records or audit rows.
    public func load(passes: @escaping () throws -> PassRow?, auditRows: @escaping () throws -> StoredAuditRow?, deeplinkHashKey: [UInt8]) throws -> (passes: Int, auditRows: Int) {
        try transaction { connection in
            try connection.run("LOCK TABLE pass_record, audit_row, attempt_lease IN EXCLUSIVE MODE", logger)
            let held = try connection.query("""
                SELECT (SELECT count(*) FROM pass_record), (SELECT count(*) FROM audit_row), (SELECT count(*) FROM attempt_lease)
                """, logger: logger).wait().first?.decode((Int, Int, Int).self) ?? (0, 0, 0)
            guard held == (0, 0, 0) else {
                throw StorageError(.storageTargetNotEmpty, "the database \(options.displayURL) already holds \(held.0) pass records and \(held.1) audit rows; db copy writes only into an empty database")
            }
            var passCount = 0
            try Self.copy(into: "pass_record", columns: ["pass_type_identifier", "serial_number", "device_account_identifier", "state", "device_label", "card_suffix"], on: connection, logger: logger) {
                guard let row = try passes() else { return nil }
                passCount += 1
                return [row.passTypeIdentifier, row.serialNumber, row.deviceAccountIdentifier, row.state, row.device, row.cardSuffix]
            }
            var auditCount = 0
            var lastAttempt: Int64 = 0
            try Self.copy(into: "audit_row", columns: Self.auditColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }, on: connection, logger: logger) {
                guard let row = try auditRows() else { return nil }
                auditCount += 1
                let v = row.values
                lastAttempt = max(lastAttempt, v.attempt)
                return [
                    String(row.seq), String(v.attempt), v.event, v.at, v.request, v.serial, v.passType, v.token, v.device, v.deeplink,
                    v.pid.map { String($0) }, v.ownerStart, v.outcome, v.error, v.http.map { String($0) }, v.last4, v.comment,
                    v.latency.map { String($0) }, row.previousHash, row.hash,
                ]
            }
            _ = try connection.query(
                "UPDATE tokenctl_metadata SET value = \(ByteBuffer(bytes: deeplinkHashKey)) WHERE key = 'deeplink-hash-key'", logger: logger
            ).wait()
            if lastAttempt > 0 {
                _ = try connection.query("SELECT setval('audit_attempt_id', \(lastAttempt))", logger: logger).wait()
            }
            return (passCount, auditCount)
        }
    }
}

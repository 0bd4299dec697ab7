import Foundation
import NIOCore
import PostgresNIO
import Storage

extension PostgresStore {
    /// Loads a whole database's wallet, audit and onboarding state (`tokenctl db copy --to
    /// postgres://…`) in one transaction: the target must hold none of them. `state` copies
    /// the onboarding state on the transaction's connection. Audit rows keep their sequence numbers and
    /// hashes, the deeplink hash key is the source's, and new attempt ids continue after the
    /// largest copied one.
    /// - Throws: `storage.targetNotEmpty` when the target holds records or audit rows.
    public func load(passes: @escaping () throws -> PassRow?, auditRows: @escaping () throws -> StoredAuditRow?, deeplinkHashKey: [UInt8], state: (any StateStatements) throws -> Int) throws -> (passes: Int, auditRows: Int, stateRows: Int) {
        try transaction { connection in
            // The audit cannot be locked as a table (LOCK TABLE … EXCLUSIVE needs the UPDATE or
            // DELETE privilege the role does not have on it); every append takes the chain lock.
            try connection.run("LOCK TABLE pass_record, attempt_lease IN EXCLUSIVE MODE", logger)
            try connection.run("SELECT pg_advisory_xact_lock(\(PostgresSchema.chainLock))", logger)
            let held = try connection.answer("""
                SELECT (SELECT count(*) FROM pass_record), (SELECT count(*) FROM audit_row), (SELECT count(*) FROM attempt_lease)
                """, logger).first?.decode((Int, Int, Int).self) ?? (0, 0, 0)
            let statements = PostgresStatements(connection: connection, logger: logger)
            let heldState = try StateTables.held(statements)
            guard held == (0, 0, 0), heldState.isEmpty else {
                throw StorageError.targetNotEmpty(options.displayURL, passes: held.0, auditRows: held.1, stateTables: heldState)
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
            _ = try connection.answer(
                "UPDATE tokenctl_metadata SET value = \(ByteBuffer(bytes: deeplinkHashKey)) WHERE key = 'deeplink-hash-key'", logger
            )
            if lastAttempt > 0 {
                _ = try connection.answer("SELECT setval('audit_attempt_id', \(lastAttempt))", logger)
            }
            return (passCount, auditCount, try state(statements))
        }
    }
}

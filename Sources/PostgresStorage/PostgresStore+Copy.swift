import Foundation
import NIOCore
import PostgresNIO
import WalletModel

extension PostgresStore {
    /// Loads a whole database's wallet, audit and onboarding state (`tokenctl db copy --to
    /// postgres://…`) in one transaction: the target must hold none of them. Audit rows keep
    /// their sequence numbers and hashes (each checked as it is read), the deeplink hash key
    /// is the source's, and new attempt ids continue after the largest copied one.
    /// - Throws: `storage.targetNotEmpty` when the target holds records or audit rows.
    public func load(_ copy: StoreCopy) throws -> CopyCounts {
        let (passes, auditRows) = (copy.nextPass, copy.nextAuditRow)
        return try transaction { connection in
            // The audit cannot be locked as a table (LOCK TABLE … EXCLUSIVE needs the UPDATE or
            // DELETE privilege the role does not have on it); every append takes the chain lock.
            try connection.run("LOCK TABLE pass_record IN EXCLUSIVE MODE", logger)
            try connection.run("SELECT pg_advisory_xact_lock(\(PostgresSchema.chainLock))", logger)
            let held =
                try connection.answer(
                    """
                    SELECT (SELECT count(*) FROM pass_record), (SELECT count(*) FROM audit_row)
                    """, logger
                ).first?.decode((Int, Int).self) ?? (0, 0)
            let heldState = try Self.stateSnapshot(connection, logger).heldTables
            guard held == (0, 0), heldState.isEmpty else {
                throw StorageError.targetNotEmpty(
                    options.displayURL, passes: held.0, auditRows: held.1, stateTables: heldState)
            }
            var passCount = 0
            try Self.copy(
                into: "pass_record",
                columns: [
                    "pass_type_identifier", "serial_number", "device_account_identifier", "state", "device_label",
                    "card_suffix",
                ], on: connection, logger: logger
            ) {
                guard let row = try passes() else { return nil }
                passCount += 1
                return [
                    row.passTypeIdentifier, row.serialNumber, row.deviceAccountIdentifier, row.state.rawValue,
                    row.device, row.cardSuffix,
                ]
            }
            var auditCount = 0
            var lastAttempt: Int64 = 0
            var chain = ChainCheck()
            try Self.copy(
                into: "audit_row",
                columns: Self.auditColumns.split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespacesAndNewlines)
                }, on: connection, logger: logger
            ) {
                guard let row = try auditRows() else { return nil }
                let v = try chain.checkCopied(row)
                auditCount += 1
                lastAttempt = max(lastAttempt, v.attemptID)
                return [
                    String(row.seq), String(v.attemptID), v.event.rawValue, v.at.iso8601, v.requestID, v.serialNumber,
                    v.passTypeIdentifier,
                    v.tokenUniqueReference, v.device, v.deeplinkHash, v.ownerPID.map { String($0) }, v.ownerStart,
                    v.outcome, v.errorCode,
                    v.httpStatus.map { String($0) }, v.cardLast4Digits, v.comment,
                    v.latencyMilliseconds.map { String($0) }, row.previousHash, row.hash,
                ]
            }
            _ = try connection.answer(
                "UPDATE tokenctl_metadata SET value = \(ByteBuffer(bytes: copy.deeplinkHashKey)) WHERE key = 'deeplink-hash-key'",
                logger
            )
            if lastAttempt > 0 {
                _ = try connection.answer("SELECT setval('audit_attempt_id', \(lastAttempt))", logger)
            }
            let state = try copy.state.stateSnapshot()
            try Self.insert(state, connection, logger)
            return CopyCounts(passes: passCount, auditRows: auditCount, stateRows: state.rowCount)
        }
    }
}

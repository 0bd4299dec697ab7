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
    public func load(_ copy: StoreCopy) async throws -> CopyCounts {
        let (passes, auditRows) = (copy.passes, copy.auditRows)
        return try await transaction { connection in
            // The audit cannot be locked as a table (LOCK TABLE … EXCLUSIVE needs the UPDATE or
            // DELETE privilege the role does not have on it); every append takes the chain lock.
            try await connection.run("LOCK TABLE pass_record IN EXCLUSIVE MODE", logger)
            try await connection.run("SELECT pg_advisory_xact_lock(\(PostgresSchema.chainLock))", logger)
            let held =
                try await connection.answer(
                    """
                    SELECT (SELECT count(*) FROM pass_record), (SELECT count(*) FROM audit_row)
                    """, logger
                ).first?.decode((Int, Int).self) ?? (0, 0)
            let heldState = try await Self.stateSnapshot(connection, logger).heldTables
            guard held == (0, 0), heldState.isEmpty else {
                throw StorageError.targetNotEmpty(
                    options.displayURL, passes: held.0, auditRows: held.1, stateTables: heldState)
            }
            var passCount = 0
            try await Self.copy(
                into: "pass_record",
                columns: [
                    "pass_type_identifier", "serial_number", "device_account_identifier", "state", "device_label",
                    "card_suffix",
                ], on: connection, logger: logger
            ) {
                guard let page = try await passes.nextPage() else { return nil }
                passCount += page.count
                var buffer = ByteBuffer()
                for row in page {
                    Self.appendCopyLine(
                        [
                            row.passTypeIdentifier, row.serialNumber, row.deviceAccountIdentifier, row.state.rawValue,
                            row.device, row.cardSuffix,
                        ], to: &buffer)
                }
                return buffer
            }
            var auditCount = 0
            var lastAttempt: Int64 = 0
            var chain = ChainCheck()
            try await Self.copy(
                into: "audit_row",
                columns: Self.auditColumns.split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespacesAndNewlines)
                }, on: connection, logger: logger
            ) {
                guard let page = try await auditRows.nextPage() else { return nil }
                var buffer = ByteBuffer()
                for row in page {
                    let v = try chain.checkCopied(row)
                    auditCount += 1
                    lastAttempt = max(lastAttempt, v.attemptID)
                    Self.appendCopyLine(Self.copyFields(row, v), to: &buffer)
                }
                return buffer
            }
            _ = try await connection.answer(
                "UPDATE tokenctl_metadata SET value = \(ByteBuffer(bytes: copy.deeplinkHashKey)) WHERE key = 'deeplink-hash-key'",
                logger
            )
            if lastAttempt > 0 {
                _ = try await connection.answer("SELECT setval('audit_attempt_id', \(lastAttempt))", logger)
            }
            let state = try await copy.state.stateSnapshot()
            try await Self.insert(state, connection, logger)
            return CopyCounts(passes: passCount, auditRows: auditCount, stateRows: state.rowCount)
        }
    }

    /// One audit row's COPY fields, in ``auditColumns``' order.
    private static func copyFields(_ row: StoredAuditRow, _ v: AuditRow) -> [String?] {
        [
            String(row.seq), String(v.attemptID), v.event.rawValue, v.at.iso8601, v.requestID, v.serialNumber,
            v.passTypeIdentifier,
            v.tokenUniqueReference, v.device, v.deeplinkHash, v.ownerPID.map { String($0) }, v.ownerStart,
            v.outcome, v.errorCode,
            v.httpStatus.map { String($0) }, v.cardLast4Digits, v.comment,
            v.latencyMilliseconds.map { String($0) }, row.previousHash, row.hash,
        ]
    }
}

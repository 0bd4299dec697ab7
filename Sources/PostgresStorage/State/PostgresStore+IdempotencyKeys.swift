import PostgresNIO
import WalletModel

/// `idempotency_key` (migrations v3 and v5). Each call is sent again while its connection
/// breaks, within the request's window (a failover): a claim committed before its answer was
/// lost comes back as held with this request's own id, and the other writes are idempotent.
extension PostgresStore: IdempotencyKeyRecords {
    public func claimIdempotencyKey(_ claim: IdempotencyKeyRow) async throws -> IdempotencyKeyClaim {
        try await retryingWithinWindow { try await insertClaim(claim) }
    }

    private func insertClaim(_ claim: IdempotencyKeyRow) async throws -> IdempotencyKeyClaim {
        try await transaction { connection in
            let inserted = try await connection.answer(
                """
                INSERT INTO idempotency_key (key, deeplink_hash, created_ms, request_id, serial_number, owner)
                VALUES (\(claim.key), \(claim.deeplinkHash), \(claim.createdMilliseconds), \(claim.requestID), \(claim.serialNumber), \(claim.owner))
                ON CONFLICT (key) DO NOTHING
                """, logger
            ).metadata.rows
            if inserted == 1 { return .inserted }
            guard
                let row = try await connection.answer(
                    """
                    SELECT deeplink_hash, created_ms, request_id, serial_number, owner, status, answer FROM idempotency_key WHERE key = \(claim.key)
                    """, logger
                ).first
            else {
                return .vanished
            }
            let cells = NamedCells(row)
            return .held(
                IdempotencyKeyRow(
                    key: claim.key, deeplinkHash: try cells["deeplink_hash"],
                    createdMilliseconds: try cells["created_ms"],
                    requestID: try cells["request_id"], serialNumber: try cells["serial_number"],
                    owner: try cells["owner"],
                    status: try cells["status", as: Int32?.self].map(Int.init), answer: try cells["answer"]
                ))
        }
    }

    public func takeOverIdempotencyKey(
        _ key: String, claimedAt: Int64, now: Int64, requestID: String, serialNumber: String?, owner: String
    ) async throws -> Bool {
        try await query(
            """
            UPDATE idempotency_key SET created_ms = \(now), request_id = \(requestID), serial_number = \(serialNumber), owner = \(owner)
            WHERE key = \(key) AND answer IS NULL AND created_ms = \(claimedAt)
            """
        ).metadata.rows == 1
    }

    public func answerIdempotencyKey(_ key: String, status: Int, body: String) async throws {
        try await retryingWithinWindow {
            try await query(
                "UPDATE idempotency_key SET status = \(Int32(clamping: status)), answer = \(body) WHERE key = \(key)")
        }
    }

    public func releaseIdempotencyKey(_ key: String) async throws {
        try await query("DELETE FROM idempotency_key WHERE key = \(key) AND answer IS NULL")
    }

    public func endIdempotencyClaim(_ key: String, requestID: String) async throws {
        try await retryingWithinWindow {
            try await query(
                """
                UPDATE idempotency_key SET owner = \(IdempotencyKeyRow.ended) WHERE key = \(key) AND answer IS NULL AND request_id = \(requestID)
                """)
        }
    }

    public func purgeIdempotencyKeys(claimedBefore milliseconds: Int64) async throws -> Int {
        try await query("DELETE FROM idempotency_key WHERE created_ms < \(milliseconds)").metadata.rows ?? 0
    }
}

import GRDB
import WalletModel

/// `idempotency_key` (migrations v8 and v9).
extension Store: IdempotencyKeyRecords {
    public func claimIdempotencyKey(_ claim: IdempotencyKeyRow) async throws -> IdempotencyKeyClaim {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO idempotency_key (key, deeplink_hash, created_ms, request_id, serial_number, owner) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (key) DO NOTHING
                    """,
                arguments: [
                    claim.key, claim.deeplinkHash, claim.createdMilliseconds, claim.requestID, claim.serialNumber,
                    claim.owner,
                ]
            )
            if db.changesCount == 1 { return .inserted }
            guard
                let row = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT deeplink_hash, created_ms, request_id, serial_number, owner, status, answer FROM idempotency_key WHERE key = ?",
                    arguments: [claim.key]
                )
            else {
                return .vanished
            }
            return .held(
                IdempotencyKeyRow(
                    key: claim.key, deeplinkHash: row["deeplink_hash"], createdMilliseconds: row["created_ms"],
                    requestID: row["request_id"],
                    serialNumber: row["serial_number"], owner: row["owner"], status: row["status"],
                    answer: row["answer"]
                ))
        }
    }

    public func takeOverIdempotencyKey(
        _ key: String, claimedAt: Int64, now: Int64, requestID: String, serialNumber: String?, owner: String
    ) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql:
                    "UPDATE idempotency_key SET created_ms = ?, request_id = ?, serial_number = ?, owner = ? WHERE key = ? AND answer IS NULL AND created_ms = ?",
                arguments: [now, requestID, serialNumber, owner, key, claimedAt]
            )
            return db.changesCount == 1
        }
    }

    public func answerIdempotencyKey(_ key: String, status: Int, body: String) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE idempotency_key SET status = ?, answer = ? WHERE key = ?", arguments: [status, body, key])
        }
    }

    public func releaseIdempotencyKey(_ key: String) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM idempotency_key WHERE key = ? AND answer IS NULL", arguments: [key])
        }
    }

    public func endIdempotencyClaim(_ key: String, requestID: String) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE idempotency_key SET owner = ? WHERE key = ? AND answer IS NULL AND request_id = ?",
                arguments: [IdempotencyKeyRow.ended, key, requestID])
        }
    }

    public func purgeIdempotencyKeys(claimedBefore milliseconds: Int64) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM idempotency_key WHERE created_ms < ?", arguments: [milliseconds])
            return db.changesCount
        }
    }
}

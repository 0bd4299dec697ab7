import GRDB
import WalletModel

/// `login_user` (migration v5).
extension Store: LoginUserRecords {
    public func loginUser(instanceID: String) async throws -> LoginUserRow? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(LoginUserTable.columns) FROM login_user WHERE instance_id = ?",
                arguments: [instanceID]
            ).map(LoginUserTable.user)
        }
    }

    public func saveLoginUser(_ user: LoginUserRow) async throws {
        try await write { db in
            try LoginUserTable.insert(
                user, db,
                onConflict: """
                    ON CONFLICT (instance_id) DO UPDATE SET
                        identity = excluded.identity, device_name = excluded.device_name, mpin_id = excluded.mpin_id,
                        reg_ott = excluded.reg_ott, state = excluded.state, secret = excluded.secret, discovery = excluded.discovery,
                        failed_attempts = excluded.failed_attempts, last_login_at = excluded.last_login_at,
                        last_login_answer = excluded.last_login_answer, created_at = excluded.created_at
                    """)
        }
    }

    public func deleteLoginUser(instanceID: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM login_user WHERE instance_id = ?", arguments: [instanceID])
            return db.changesCount == 1
        }
    }
}

enum LoginUserTable {
    static let columns = """
        instance_id, identity, device_name, mpin_id, reg_ott, state, secret, discovery, failed_attempts, last_login_at,
        last_login_answer, created_at
        """

    static func insert(_ user: LoginUserRow, _ db: Database, onConflict: String = "") throws {
        let u = user
        try db.execute(
            sql: "INSERT INTO login_user (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \(onConflict)",
            arguments: [
                u.instanceID, u.identity, u.deviceName, u.mpinID, u.regOTT, u.state, u.secret, u.discovery,
                u.failedAttempts, u.lastLoginAt,
                u.lastLoginAnswer, u.createdAt,
            ]
        )
    }

    static func all(_ db: Database) throws -> [LoginUserRow] {
        try Row.fetchAll(db, sql: "SELECT \(columns) FROM login_user ORDER BY instance_id").map(user)
    }

    static func user(_ row: Row) -> LoginUserRow {
        LoginUserRow(
            instanceID: row["instance_id"], identity: row["identity"], deviceName: row["device_name"],
            mpinID: row["mpin_id"],
            regOTT: row["reg_ott"], state: row["state"], secret: row["secret"], discovery: row["discovery"],
            failedAttempts: row["failed_attempts"], lastLoginAt: row["last_login_at"],
            lastLoginAnswer: row["last_login_answer"],
            createdAt: row["created_at"]
        )
    }
}

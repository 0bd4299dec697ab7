import PostgresNIO
import WalletModel

/// `login_user` (migration v2).
extension PostgresStore: LoginUserRecords {
    static let loginUserColumns = """
        instance_id, identity, device_name, mpin_id, reg_ott, state, secret, discovery, failed_attempts, last_login_at,
        last_login_answer, created_at
        """

    public func loginUser(instanceID: String) async throws -> LoginUserRow? {
        try await query("SELECT \(unescaped: Self.loginUserColumns) FROM login_user WHERE instance_id = \(instanceID)")
            .first
            .map(Self.loginUser)
    }

    public func saveLoginUser(_ user: LoginUserRow) async throws {
        try await query(
            Self.insert(
                user,
                onConflict: """
                    ON CONFLICT (instance_id) DO UPDATE SET
                        identity = excluded.identity, device_name = excluded.device_name, mpin_id = excluded.mpin_id,
                        reg_ott = excluded.reg_ott, state = excluded.state, secret = excluded.secret, discovery = excluded.discovery,
                        failed_attempts = excluded.failed_attempts, last_login_at = excluded.last_login_at,
                        last_login_answer = excluded.last_login_answer, created_at = excluded.created_at
                    """))
    }

    public func deleteLoginUser(instanceID: String) async throws -> Bool {
        try await query("DELETE FROM login_user WHERE instance_id = \(instanceID)").metadata.rows == 1
    }

    static func insert(_ user: LoginUserRow, onConflict: String = "") -> PostgresQuery {
        let u = user
        return """
            INSERT INTO login_user (\(unescaped: loginUserColumns))
            VALUES (\(u.instanceID), \(u.identity), \(u.deviceName), \(u.mpinID), \(u.regOTT), \(u.state), \(u.secret), \(u.discovery),
                    \(Int32(clamping: u.failedAttempts)), \(u.lastLoginAt), \(u.lastLoginAnswer), \(u.createdAt))
            \(unescaped: onConflict)
            """
    }

    static func loginUsers(_ connection: PostgresConnection, _ logger: Logger) async throws -> [LoginUserRow] {
        try await connection.answer(
            "SELECT \(unescaped: loginUserColumns) FROM login_user ORDER BY instance_id", logger
        ).map(
            loginUser)
    }

    static func loginUser(_ row: PostgresRow) throws -> LoginUserRow {
        let cells = NamedCells(row)
        return LoginUserRow(
            instanceID: try cells["instance_id"], identity: try cells["identity"], deviceName: try cells["device_name"],
            mpinID: try cells["mpin_id"],
            regOTT: try cells["reg_ott"], state: try cells["state"], secret: try cells["secret"],
            discovery: try cells["discovery"],
            failedAttempts: Int(try cells["failed_attempts", as: Int32.self]), lastLoginAt: try cells["last_login_at"],
            lastLoginAnswer: try cells["last_login_answer"], createdAt: try cells["created_at"]
        )
    }
}

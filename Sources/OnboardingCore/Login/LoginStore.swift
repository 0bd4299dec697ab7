import Foundation
import WalletModel

/// The `login_user` table: the installation's one PIN login user, per instance id.
struct LoginStore {
    let store: any StateDatabase

    func load(_ instanceID: String) throws -> LoginUser? {
        try store.readState { db in
            guard let row = try db.row("SELECT * FROM login_user WHERE instance_id = ?", [.text(instanceID)]) else { return nil }
            let discovery = row.text("discovery").flatMap { try? JSONDecoder().decode(Discovery.self, from: Data($0.utf8)) }
            return LoginUser(
                identity: row.text("identity") ?? "", deviceName: row.text("device_name") ?? "", mpinID: row.text("mpin_id") ?? "",
                regOTT: row.text("reg_ott") ?? "", state: row.text("state").flatMap(LoginUserState.init(rawValue:)) ?? .invalid,
                secret: row.text("secret"),
                discovery: discovery ?? Discovery(registerURL: "", signatureURL: "", certivoxURL: "", mpinAuthServerURL: "", mobileAuthenticateURL: "", codeStatusURL: ""),
                failedAttempts: row.integer("failed_attempts") ?? 0, lastLoginAt: row.text("last_login_at").flatMap { try? Date($0, strategy: .iso8601) },
                lastLoginAnswer: row.text("last_login_answer"),
                createdAt: row.text("created_at").flatMap { try? Date($0, strategy: .iso8601) } ?? Date(timeIntervalSince1970: 0)
            )
        }
    }

    /// Writes the user, replacing the instance's previous one.
    func save(_ user: LoginUser, instanceID: String) throws {
        let discovery = String(decoding: (try? JSONEncoder().encode(user.discovery)) ?? Data(), as: UTF8.self)
        try store.writeState { db in
            try db.execute("""
                INSERT INTO login_user
                    (instance_id, identity, device_name, mpin_id, reg_ott, state, secret, discovery,
                     failed_attempts, last_login_at, last_login_answer, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (instance_id) DO UPDATE SET
                    identity = excluded.identity, device_name = excluded.device_name, mpin_id = excluded.mpin_id,
                    reg_ott = excluded.reg_ott, state = excluded.state, secret = excluded.secret, discovery = excluded.discovery,
                    failed_attempts = excluded.failed_attempts, last_login_at = excluded.last_login_at,
                    last_login_answer = excluded.last_login_answer, created_at = excluded.created_at
                """, [
                    .text(instanceID), .text(user.identity), .text(user.deviceName), .text(user.mpinID), .text(user.regOTT),
                    .text(user.state.rawValue), StateValue(user.secret), .text(discovery), StateValue(user.failedAttempts),
                    StateValue(user.lastLoginAt?.ISO8601Format()), StateValue(user.lastLoginAnswer), .text(user.createdAt.ISO8601Format()),
                ])
        }
    }

    /// Deletes the instance's user; false when there was none.
    @discardableResult
    func delete(_ instanceID: String) throws -> Bool {
        try store.writeState { db in
            try db.execute("DELETE FROM login_user WHERE instance_id = ?", [.text(instanceID)]) == 1
        }
    }
}

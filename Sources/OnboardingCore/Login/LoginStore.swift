import Foundation
import GRDB
import Storage

/// The `login_user` table: the installation's one PIN login user, per instance id.
struct LoginStore {
    let store: Store

    func load(_ instanceID: String) throws -> LoginUser? {
        try store.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM login_user WHERE instance_id = ?", arguments: [instanceID]) else { return nil }
            let discovery = (row["discovery"] as String?).flatMap { try? JSONDecoder().decode(Discovery.self, from: Data($0.utf8)) }
            return LoginUser(
                identity: row["identity"], deviceName: row["device_name"], mpinID: row["mpin_id"], regOTT: row["reg_ott"],
                state: LoginUserState(rawValue: row["state"]) ?? .invalid, secret: row["secret"],
                discovery: discovery ?? Discovery(registerURL: "", signatureURL: "", certivoxURL: "", mpinAuthServerURL: "", mobileAuthenticateURL: "", codeStatusURL: ""),
                failedAttempts: row["failed_attempts"], lastLoginAt: (row["last_login_at"] as String?).flatMap { try? Date($0, strategy: .iso8601) },
                lastLoginAnswer: row["last_login_answer"], createdAt: (try? Date(row["created_at"] as String, strategy: .iso8601)) ?? Date(timeIntervalSince1970: 0)
            )
        }
    }

    /// Writes the user, replacing the instance's previous one.
    func save(_ user: LoginUser, instanceID: String) throws {
        let discovery = String(decoding: (try? JSONEncoder().encode(user.discovery)) ?? Data(), as: UTF8.self)
        try store.write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO login_user
                    (instance_id, identity, device_name, mpin_id, reg_ott, state, secret, discovery,
                     failed_attempts, last_login_at, last_login_answer, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [
                    instanceID, user.identity, user.deviceName, user.mpinID, user.regOTT, user.state.rawValue, user.secret, discovery,
                    user.failedAttempts, user.lastLoginAt?.ISO8601Format(), user.lastLoginAnswer, user.createdAt.ISO8601Format(),
                ])
        }
    }

    /// Deletes the instance's user; false when there was none.
    @discardableResult
    func delete(_ instanceID: String) throws -> Bool {
        try store.write { db in
            try db.execute(sql: "DELETE FROM login_user WHERE instance_id = ?", arguments: [instanceID])
            return db.changesCount == 1
        }
    }
}

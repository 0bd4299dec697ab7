import Foundation
import WalletModel

/// The installation's one PIN login user, per instance id, as its ``LoginUserRecords`` row.
struct LoginStore {
    let records: any LoginUserRecords

    func load(_ instanceID: String) async throws -> LoginUser? {
        guard let row = try await records.loginUser(instanceID: instanceID) else { return nil }
        let discovery = try? JSONDecoder().decode(Discovery.self, from: Data(row.discovery.utf8))
        return LoginUser(
            identity: row.identity, deviceName: row.deviceName, mpinID: row.mpinID, regOTT: row.regOTT,
            state: LoginUserState(rawValue: row.state) ?? .invalid, secret: row.secret,
            discovery: discovery
                ?? Discovery(
                    registerURL: "", signatureURL: "", certivoxURL: "", mpinAuthServerURL: "",
                    mobileAuthenticateURL: "", codeStatusURL: ""),
            failedAttempts: row.failedAttempts,
            lastLoginAt: row.lastLoginAt.flatMap { try? Date($0, strategy: .iso8601) },
            lastLoginAnswer: row.lastLoginAnswer,
            createdAt: (try? Date(row.createdAt, strategy: .iso8601)) ?? Date(timeIntervalSince1970: 0)
        )
    }

    /// Writes the user, replacing the instance's previous one.
    func save(_ user: LoginUser, instanceID: String) async throws {
        let discovery = String(decoding: (try? JSONEncoder().encode(user.discovery)) ?? Data(), as: UTF8.self)
        try await records.saveLoginUser(
            LoginUserRow(
                instanceID: instanceID, identity: user.identity, deviceName: user.deviceName, mpinID: user.mpinID,
                regOTT: user.regOTT,
                state: user.state.rawValue, secret: user.secret, discovery: discovery,
                failedAttempts: user.failedAttempts,
                lastLoginAt: user.lastLoginAt?.ISO8601Format(), lastLoginAnswer: user.lastLoginAnswer,
                createdAt: user.createdAt.ISO8601Format()
            ))
    }

    /// Deletes the instance's user; false when there was none.
    @discardableResult
    func delete(_ instanceID: String) async throws -> Bool {
        try await records.deleteLoginUser(instanceID: instanceID)
    }
}

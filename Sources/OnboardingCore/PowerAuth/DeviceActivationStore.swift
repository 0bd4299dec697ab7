import Foundation
import GRDB
import PowerAuth
import Storage

/// Reads and writes the `powerauth_activation` table.
struct DeviceActivationStore {
    let store: Store

    func load(_ instanceID: String) throws -> DeviceActivation? {
        try store.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM powerauth_activation WHERE instance_id = ?", arguments: [instanceID]).map(Self.activation)
        }
    }

    /// Inserts a new activation; false when the instance already has one.
    func insert(_ activation: DeviceActivation) throws -> Bool {
        try store.write { db in
            try db.execute(sql: """
                INSERT OR IGNORE INTO powerauth_activation (instance_id, activation_id, activation_name, created_at,
                    server_public_key, device_public_key, device_private_key_vault, possession_key, transport_key,
                    knowledge_key_encrypted, knowledge_key_salt, knowledge_key_iterations, counter_data, counter)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [
                    activation.instanceID, activation.activationID, activation.name, activation.createdAt,
                    Data(activation.serverPublicKey), Data(activation.devicePublicKey), Data(activation.devicePrivateKeyVault),
                    Data(activation.possessionKey), Data(activation.transportKey),
                    Data(activation.knowledgeKey.encryptedKey), Data(activation.knowledgeKey.salt), activation.knowledgeKey.iterations,
                    Data(activation.counterData), activation.counter,
                ])
            return db.changesCount == 1
        }
    }

    /// Takes the current counter data for one signature and stores the next value,
    /// committed before the signed request leaves.
    func takeCounter(_ instanceID: String) throws -> [UInt8]? {
        try store.write { db in
            guard let data = try Data.fetchOne(db, sql: "SELECT counter_data FROM powerauth_activation WHERE instance_id = ?", arguments: [instanceID]) else {
                return nil
            }
            let current = Array(data)
            try db.execute(
                sql: "UPDATE powerauth_activation SET counter_data = ?, counter = counter + 1 WHERE instance_id = ?",
                arguments: [Data(HashCounter.next(current)), instanceID]
            )
            return current
        }
    }

    func saveToken(_ token: DeviceActivation.Token, instanceID: String) throws {
        try store.write { db in
            try db.execute(
                sql: "UPDATE powerauth_activation SET token_id = ?, token_secret = ?, token_factor = ? WHERE instance_id = ?",
                arguments: [token.id, Data(token.secret), token.factor.rawValue, instanceID]
            )
        }
    }

    /// Forgets the activation; true when there was one.
    func delete(_ instanceID: String) throws -> Bool {
        try store.write { db in
            try db.execute(sql: "DELETE FROM powerauth_activation WHERE instance_id = ?", arguments: [instanceID])
            return db.changesCount == 1
        }
    }

    private static func activation(_ row: Row) -> DeviceActivation {
        func bytes(_ column: String) -> [UInt8] { (row[column] as Data?).map(Array.init) ?? [] }
        var token: DeviceActivation.Token?
        if let id: String = row["token_id"], let factor = (row["token_factor"] as String?).flatMap(SignatureFactor.init(rawValue:)) {
            token = DeviceActivation.Token(id: id, secret: bytes("token_secret"), factor: factor)
        }
        return DeviceActivation(
            instanceID: row["instance_id"], activationID: row["activation_id"], name: row["activation_name"], createdAt: row["created_at"],
            serverPublicKey: bytes("server_public_key"), devicePublicKey: bytes("device_public_key"),
            devicePrivateKeyVault: bytes("device_private_key_vault"), possessionKey: bytes("possession_key"), transportKey: bytes("transport_key"),
            knowledgeKey: ProtectedKnowledgeKey(encryptedKey: bytes("knowledge_key_encrypted"), salt: bytes("knowledge_key_salt"), iterations: row["knowledge_key_iterations"]),
            counterData: bytes("counter_data"), counter: row["counter"], token: token
        )
    }
}

import Foundation
import PowerAuth
import WalletModel

/// Reads and writes the `powerauth_activation` table.
struct DeviceActivationStore {
    let store: any StateDatabase

    func load(_ instanceID: String) throws -> DeviceActivation? {
        try store.readState { db in
            try db.row("SELECT * FROM powerauth_activation WHERE instance_id = ?", [.text(instanceID)]).map(Self.activation)
        }
    }

    /// Inserts a new activation; false when the instance already has one.
    func insert(_ activation: DeviceActivation) throws -> Bool {
        try store.writeState { db in
            try db.execute("""
                INSERT INTO powerauth_activation (instance_id, activation_id, activation_name, created_at,
                    server_public_key, device_public_key, device_private_key_vault, possession_key, transport_key,
                    knowledge_key_encrypted, knowledge_key_salt, knowledge_key_iterations, counter_data, counter)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """, [
                    .text(activation.instanceID), .text(activation.activationID), .text(activation.name), .text(activation.createdAt),
                    .bytes(activation.serverPublicKey), .bytes(activation.devicePublicKey), .bytes(activation.devicePrivateKeyVault),
                    .bytes(activation.possessionKey), .bytes(activation.transportKey),
                    .bytes(activation.knowledgeKey.encryptedKey), .bytes(activation.knowledgeKey.salt), StateValue(activation.knowledgeKey.iterations),
                    .bytes(activation.counterData), .integer(activation.counter),
                ]) == 1
        }
    }

    /// Takes the current counter data for one signature and stores the next value,
    /// committed before the signed request leaves. The counter is bumped first: on
    /// PostgreSQL that locks the row, so two hosts never take the same counter data.
    func takeCounter(_ instanceID: String) throws -> [UInt8]? {
        try store.writeState { db in
            guard try db.execute("UPDATE powerauth_activation SET counter = counter + 1 WHERE instance_id = ?", [.text(instanceID)]) == 1,
                  let current = try db.row("SELECT counter_data FROM powerauth_activation WHERE instance_id = ?", [.text(instanceID)])?.bytes("counter_data")
            else {
                return nil
            }
            try db.execute(
                "UPDATE powerauth_activation SET counter_data = ? WHERE instance_id = ?",
                [.bytes(HashCounter.next(current)), .text(instanceID)]
            )
            return current
        }
    }

    func saveToken(_ token: DeviceActivation.Token, instanceID: String) throws {
        try store.writeState { db in
            try db.execute(
                "UPDATE powerauth_activation SET token_id = ?, token_secret = ?, token_factor = ? WHERE instance_id = ?",
                [.text(token.id), .bytes(token.secret), .text(token.factor.rawValue), .text(instanceID)]
            )
        }
    }

    /// Forgets the activation; true when there was one.
    func delete(_ instanceID: String) throws -> Bool {
        try store.writeState { db in
            try db.execute("DELETE FROM powerauth_activation WHERE instance_id = ?", [.text(instanceID)]) == 1
        }
    }

    private static func activation(_ row: StateRow) -> DeviceActivation {
        func bytes(_ column: String) -> [UInt8] { row.bytes(column) ?? [] }
        var token: DeviceActivation.Token?
        if let id = row.text("token_id"), let factor = row.text("token_factor").flatMap(SignatureFactor.init(rawValue:)) {
            token = DeviceActivation.Token(id: id, secret: bytes("token_secret"), factor: factor)
        }
        return DeviceActivation(
            instanceID: row.text("instance_id") ?? "", activationID: row.text("activation_id") ?? "", name: row.text("activation_name") ?? "",
            createdAt: row.text("created_at") ?? "",
            serverPublicKey: bytes("server_public_key"), devicePublicKey: bytes("device_public_key"),
            devicePrivateKeyVault: bytes("device_private_key_vault"), possessionKey: bytes("possession_key"), transportKey: bytes("transport_key"),
            knowledgeKey: ProtectedKnowledgeKey(encryptedKey: bytes("knowledge_key_encrypted"), salt: bytes("knowledge_key_salt"), iterations: row.integer("knowledge_key_iterations") ?? 0),
            counterData: bytes("counter_data"), counter: Int64(row.integer("counter") ?? 0), token: token
        )
    }
}

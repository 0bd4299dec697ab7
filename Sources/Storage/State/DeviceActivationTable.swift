import Foundation
import GRDB
import WalletModel

/// `powerauth_activation` (migration v3).
extension Store: DeviceActivationRecords {
    public func deviceActivation(instanceID: String) async throws -> DeviceActivationRow? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(DeviceActivationTable.columns) FROM powerauth_activation WHERE instance_id = ?",
                arguments: [instanceID]
            )
            .map(DeviceActivationTable.activation)
        }
    }

    public func insertDeviceActivation(_ activation: DeviceActivationRow) async throws -> Bool {
        try await write { db in
            try DeviceActivationTable.insert(activation, db, onConflict: "ON CONFLICT DO NOTHING")
            return db.changesCount == 1
        }
    }

    public func takeSignatureCounter(
        instanceID: String, next: @escaping @Sendable ([UInt8]) -> [UInt8]
    ) async throws -> [UInt8]? {
        try await write { db in
            try db.execute(
                sql: "UPDATE powerauth_activation SET counter = counter + 1 WHERE instance_id = ?",
                arguments: [instanceID])
            guard db.changesCount == 1,
                let current = try Data.fetchOne(
                    db, sql: "SELECT counter_data FROM powerauth_activation WHERE instance_id = ?",
                    arguments: [instanceID])
            else {
                return nil
            }
            try db.execute(
                sql: "UPDATE powerauth_activation SET counter_data = ? WHERE instance_id = ?",
                arguments: [Data(next(Array(current))), instanceID])
            return Array(current)
        }
    }

    public func saveDeviceToken(_ token: DeviceTokenRow, instanceID: String) async throws {
        try await write { db in
            try db.execute(
                sql:
                    "UPDATE powerauth_activation SET token_id = ?, token_secret = ?, token_factor = ? WHERE instance_id = ?",
                arguments: [token.id, Data(token.secret), token.factor, instanceID]
            )
        }
    }

    public func deleteDeviceActivation(instanceID: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM powerauth_activation WHERE instance_id = ?", arguments: [instanceID])
            return db.changesCount == 1
        }
    }
}

enum DeviceActivationTable {
    static let columns = """
        instance_id, activation_id, activation_name, created_at, server_public_key, device_public_key, device_private_key_vault,
        possession_key, transport_key, knowledge_key_encrypted, knowledge_key_salt, knowledge_key_iterations, counter_data, counter,
        token_id, token_secret, token_factor
        """

    static func insert(_ activation: DeviceActivationRow, _ db: Database, onConflict: String = "") throws {
        let a = activation
        let values: [(any DatabaseValueConvertible)?] = [
            a.instanceID, a.activationID, a.name, a.createdAt, Data(a.serverPublicKey), Data(a.devicePublicKey),
            Data(a.devicePrivateKeyVault),
            Data(a.possessionKey), Data(a.transportKey), Data(a.knowledgeKeyEncrypted), Data(a.knowledgeKeySalt),
            a.knowledgeKeyIterations,
            Data(a.counterData), a.counter, a.token?.id, a.token.map { Data($0.secret) }, a.token?.factor,
        ]
        try db.execute(
            sql:
                "INSERT INTO powerauth_activation (\(columns)) VALUES (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))"
                + " \(onConflict)",
            arguments: StatementArguments(values)
        )
    }

    static func all(_ db: Database) throws -> [DeviceActivationRow] {
        try Row.fetchAll(db, sql: "SELECT \(columns) FROM powerauth_activation ORDER BY instance_id").map(activation)
    }

    static func activation(_ row: Row) -> DeviceActivationRow {
        func bytes(_ column: String) -> [UInt8] { (row[column] as Data?).map(Array.init) ?? [] }
        var token: DeviceTokenRow?
        if let id: String = row["token_id"], let factor: String = row["token_factor"] {
            token = DeviceTokenRow(id: id, secret: bytes("token_secret"), factor: factor)
        }
        return DeviceActivationRow(
            instanceID: row["instance_id"], activationID: row["activation_id"], name: row["activation_name"],
            createdAt: row["created_at"],
            serverPublicKey: bytes("server_public_key"), devicePublicKey: bytes("device_public_key"),
            devicePrivateKeyVault: bytes("device_private_key_vault"), possessionKey: bytes("possession_key"),
            transportKey: bytes("transport_key"),
            knowledgeKeyEncrypted: bytes("knowledge_key_encrypted"), knowledgeKeySalt: bytes("knowledge_key_salt"),
            knowledgeKeyIterations: row["knowledge_key_iterations"], counterData: bytes("counter_data"),
            counter: row["counter"], token: token
        )
    }
}

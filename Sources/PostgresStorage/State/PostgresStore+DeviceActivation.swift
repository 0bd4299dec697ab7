import NIOCore
import PostgresNIO
import WalletModel

/// `powerauth_activation` (migration v2).
extension PostgresStore: DeviceActivationRecords {
    static let deviceActivationColumns = """
        instance_id, activation_id, activation_name, created_at, server_public_key, device_public_key, device_private_key_vault,
        possession_key, transport_key, knowledge_key_encrypted, knowledge_key_salt, knowledge_key_iterations, counter_data, counter,
        token_id, token_secret, token_factor
        """

    public func deviceActivation(instanceID: String) async throws -> DeviceActivationRow? {
        try await query(
            "SELECT \(unescaped: Self.deviceActivationColumns) FROM powerauth_activation WHERE instance_id = \(instanceID)"
        )
        .first.map(Self.deviceActivation)
    }

    public func insertDeviceActivation(_ activation: DeviceActivationRow) async throws -> Bool {
        try await query(Self.insert(activation, onConflict: "ON CONFLICT DO NOTHING")).metadata.rows == 1
    }

    public func takeSignatureCounter(
        instanceID: String, next: @escaping @Sendable ([UInt8]) -> [UInt8]
    ) async throws -> [UInt8]? {
        try await transaction { connection in
            // The bump locks the row: two hosts never take the same counter data.
            guard
                let row = try await connection.answer(
                    "UPDATE powerauth_activation SET counter = counter + 1 WHERE instance_id = \(instanceID) RETURNING counter_data",
                    logger
                ).first
            else {
                return nil
            }
            let current = try NamedCells(row).bytes("counter_data")
            _ = try await connection.answer(
                "UPDATE powerauth_activation SET counter_data = \(ByteBuffer(bytes: next(current))) WHERE instance_id = \(instanceID)",
                logger
            )
            return current
        }
    }

    public func saveDeviceToken(_ token: DeviceTokenRow, instanceID: String) async throws {
        try await query(
            """
            UPDATE powerauth_activation SET token_id = \(token.id), token_secret = \(ByteBuffer(bytes: token.secret)), token_factor = \(token.factor)
            WHERE instance_id = \(instanceID)
            """)
    }

    public func deleteDeviceActivation(instanceID: String) async throws -> Bool {
        try await query("DELETE FROM powerauth_activation WHERE instance_id = \(instanceID)").metadata.rows == 1
    }

    static func insert(_ activation: DeviceActivationRow, onConflict: String = "") -> PostgresQuery {
        let a = activation
        func bytes(_ value: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: value) }
        return """
            INSERT INTO powerauth_activation (\(unescaped: deviceActivationColumns))
            VALUES (\(a.instanceID), \(a.activationID), \(a.name), \(a.createdAt), \(bytes(a.serverPublicKey)), \(bytes(a.devicePublicKey)),
                    \(bytes(a.devicePrivateKeyVault)), \(bytes(a.possessionKey)), \(bytes(a.transportKey)), \(bytes(a.knowledgeKeyEncrypted)),
                    \(bytes(a.knowledgeKeySalt)), \(a.knowledgeKeyIterations), \(bytes(a.counterData)), \(a.counter),
                    \(a.token?.id), \(a.token.map { bytes($0.secret) }), \(a.token?.factor))
            \(unescaped: onConflict)
            """
    }

    static func deviceActivations(
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [DeviceActivationRow] {
        try await connection.answer(
            "SELECT \(unescaped: deviceActivationColumns) FROM powerauth_activation ORDER BY instance_id", logger
        ).map(deviceActivation)
    }

    static func deviceActivation(_ row: PostgresRow) throws -> DeviceActivationRow {
        let cells = NamedCells(row)
        var token: DeviceTokenRow?
        if let id: String? = try cells["token_id"], let id, let factor: String? = try cells["token_factor"], let factor
        {
            token = DeviceTokenRow(id: id, secret: try cells.optionalBytes("token_secret") ?? [], factor: factor)
        }
        return DeviceActivationRow(
            instanceID: try cells["instance_id"], activationID: try cells["activation_id"],
            name: try cells["activation_name"],
            createdAt: try cells["created_at"], serverPublicKey: try cells.bytes("server_public_key"),
            devicePublicKey: try cells.bytes("device_public_key"),
            devicePrivateKeyVault: try cells.bytes("device_private_key_vault"),
            possessionKey: try cells.bytes("possession_key"),
            transportKey: try cells.bytes("transport_key"),
            knowledgeKeyEncrypted: try cells.bytes("knowledge_key_encrypted"),
            knowledgeKeySalt: try cells.bytes("knowledge_key_salt"),
            knowledgeKeyIterations: Int(try cells["knowledge_key_iterations", as: Int32.self]),
            counterData: try cells.bytes("counter_data"), counter: try cells["counter"], token: token
        )
    }
}

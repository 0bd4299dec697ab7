import Foundation
import PowerAuth
import WalletModel

/// The device activation, one per instance id, as its ``DeviceActivationRecords`` row.
struct DeviceActivationStore {
    let records: any DeviceActivationRecords

    func load(_ instanceID: String) async throws -> DeviceActivation? {
        try await records.deviceActivation(instanceID: instanceID).map(Self.activation)
    }

    /// Inserts a new activation; false when the instance already has one.
    func insert(_ activation: DeviceActivation) async throws -> Bool {
        let a = activation
        return try await records.insertDeviceActivation(
            DeviceActivationRow(
                instanceID: a.instanceID, activationID: a.activationID, name: a.name, createdAt: a.createdAt,
                serverPublicKey: a.serverPublicKey,
                devicePublicKey: a.devicePublicKey, devicePrivateKeyVault: a.devicePrivateKeyVault,
                possessionKey: a.possessionKey,
                transportKey: a.transportKey, knowledgeKeyEncrypted: a.knowledgeKey.encryptedKey,
                knowledgeKeySalt: a.knowledgeKey.salt,
                knowledgeKeyIterations: a.knowledgeKey.iterations, counterData: a.counterData, counter: a.counter,
                token: a.token.map { DeviceTokenRow(id: $0.id, secret: $0.secret, factor: $0.factor.rawValue) }
            ))
    }

    /// Takes the current counter data for one signature and stores the next value,
    /// committed before the signed request leaves.
    func takeCounter(_ instanceID: String) async throws -> [UInt8]? {
        try await records.takeSignatureCounter(instanceID: instanceID, next: HashCounter.next)
    }

    func saveToken(_ token: DeviceActivation.Token, instanceID: String) async throws {
        try await records.saveDeviceToken(
            DeviceTokenRow(id: token.id, secret: token.secret, factor: token.factor.rawValue), instanceID: instanceID)
    }

    /// Forgets the activation; true when there was one.
    func delete(_ instanceID: String) async throws -> Bool {
        try await records.deleteDeviceActivation(instanceID: instanceID)
    }

    private static func activation(_ row: DeviceActivationRow) -> DeviceActivation {
        var token: DeviceActivation.Token?
        if let stored = row.token, let factor = SignatureFactor(rawValue: stored.factor) {
            token = DeviceActivation.Token(id: stored.id, secret: stored.secret, factor: factor)
        }
        return DeviceActivation(
            instanceID: row.instanceID, activationID: row.activationID, name: row.name, createdAt: row.createdAt,
            serverPublicKey: row.serverPublicKey, devicePublicKey: row.devicePublicKey,
            devicePrivateKeyVault: row.devicePrivateKeyVault,
            possessionKey: row.possessionKey, transportKey: row.transportKey,
            knowledgeKey: ProtectedKnowledgeKey(
                encryptedKey: row.knowledgeKeyEncrypted, salt: row.knowledgeKeySalt,
                iterations: row.knowledgeKeyIterations),
            counterData: row.counterData, counter: row.counter, token: token
        )
    }
}

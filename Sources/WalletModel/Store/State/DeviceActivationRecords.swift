/// The PowerAuth device activation, one per instance id (`powerauth_activation`).
public protocol DeviceActivationRecords: Sendable {
    func deviceActivation(instanceID: String) async throws -> DeviceActivationRow?

    /// Stores a new activation; false when the instance already has one.
    func insertDeviceActivation(_ activation: DeviceActivationRow) async throws -> Bool

    /// Takes the current counter data for one signature and stores `next` of it, committed
    /// before the signed request leaves; nil without an activation. The counter is bumped
    /// first: on PostgreSQL that locks the row, so two hosts never take the same counter data.
    func takeSignatureCounter(
        instanceID: String, next: @escaping @Sendable ([UInt8]) -> [UInt8]
    ) async throws -> [UInt8]?

    func saveDeviceToken(_ token: DeviceTokenRow, instanceID: String) async throws

    /// Forgets the activation; true when there was one.
    func deleteDeviceActivation(instanceID: String) async throws -> Bool
}

/// A `powerauth_activation` row. The possession and transport keys are kept as the
/// database's access rules guard them; the knowledge key only encrypted under a
/// PIN-stretched key; the device private key only encrypted under the vault key.
public struct DeviceActivationRow: Sendable, Equatable {
    public var instanceID: String
    public var activationID: String
    public var name: String
    public var createdAt: String
    public var serverPublicKey: [UInt8]
    public var devicePublicKey: [UInt8]
    public var devicePrivateKeyVault: [UInt8]
    public var possessionKey: [UInt8]
    public var transportKey: [UInt8]
    public var knowledgeKeyEncrypted: [UInt8]
    public var knowledgeKeySalt: [UInt8]
    public var knowledgeKeyIterations: Int
    public var counterData: [UInt8]
    public var counter: Int64
    public var token: DeviceTokenRow?

    public init(
        instanceID: String, activationID: String, name: String, createdAt: String, serverPublicKey: [UInt8],
        devicePublicKey: [UInt8],
        devicePrivateKeyVault: [UInt8], possessionKey: [UInt8], transportKey: [UInt8], knowledgeKeyEncrypted: [UInt8],
        knowledgeKeySalt: [UInt8], knowledgeKeyIterations: Int, counterData: [UInt8], counter: Int64,
        token: DeviceTokenRow?
    ) {
        self.instanceID = instanceID
        self.activationID = activationID
        self.name = name
        self.createdAt = createdAt
        self.serverPublicKey = serverPublicKey
        self.devicePublicKey = devicePublicKey
        self.devicePrivateKeyVault = devicePrivateKeyVault
        self.possessionKey = possessionKey
        self.transportKey = transportKey
        self.knowledgeKeyEncrypted = knowledgeKeyEncrypted
        self.knowledgeKeySalt = knowledgeKeySalt
        self.knowledgeKeyIterations = knowledgeKeyIterations
        self.counterData = counterData
        self.counter = counter
        self.token = token
    }
}

/// A PowerAuth token kept with its activation: its id, secret and signature factor.
public struct DeviceTokenRow: Sendable, Equatable {
    public var id: String
    public var secret: [UInt8]
    public var factor: String

    public init(id: String, secret: [UInt8], factor: String) {
        self.id = id
        self.secret = secret
        self.factor = factor
    }
}

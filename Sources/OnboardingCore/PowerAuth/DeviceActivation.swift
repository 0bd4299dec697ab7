@preconcurrency import Crypto
import PowerAuth

/// The device activation this client holds, as persisted in `powerauth_activation`.
public struct DeviceActivation: Sendable, Equatable {
    public struct Token: Sendable, Equatable {
        public var id: String
        public var secret: [UInt8]
        public var factor: SignatureFactor
    }

    public var instanceID: String
    public var activationID: String
    public var name: String
    public var createdAt: String
    public var serverPublicKey: [UInt8]
    public var devicePublicKey: [UInt8]
    /// `KEY_DEVICE_PRIVATE` encrypted with the vault key (AES-CBC, zero IV); the
    /// vault key itself is never stored.
    public var devicePrivateKeyVault: [UInt8]
    public var possessionKey: [UInt8]
    public var transportKey: [UInt8]
    public var knowledgeKey: ProtectedKnowledgeKey
    public var counterData: [UInt8]
    public var counter: Int64
    public var token: Token?

    /// The eight-digit fingerprint of the exchanged public keys.
    public var fingerprint: String {
        guard let device = try? P256Keys.publicKey(devicePublicKey),
            let server = try? P256Keys.publicKey(serverPublicKey)
        else { return "" }
        return Fingerprint.compute(devicePublicKey: device, serverPublicKey: server, activationId: activationID)
    }
}

/// PowerAuth 3 key derivation: `KDF` (AES-128 of an index block under the source
/// key) and `KDF_INTERNAL` (HMAC-SHA256 folded to 16 bytes).
public enum KeyDerivation {
    /// `KDF.derive(key, index)`: AES-128-ECB of 8 zero bytes followed by the
    /// big-endian 64-bit index, keyed with the 16-byte source key.
    public static func derive(_ key: [UInt8], index: UInt64) -> [UInt8] {
        let block = [UInt8](repeating: 0, count: 8) + Bytes.bigEndian(index)
        // One block of CBC with a zero IV is ECB.
        // swiftlint:disable:next force_try
        return try! Symmetric.aesEncrypt(block, key: key, iv: [UInt8](repeating: 0, count: 16), padding: false)
    }

    /// `KDF_INTERNAL.derive(key, data)`.
    public static func deriveInternal(_ key: [UInt8], data: [UInt8]) -> [UInt8] {
        Bytes.fold(Symmetric.hmacSHA256(key: key, data: data))
    }
}

/// The keys derived from the master secret of an activation.
public struct DerivedKeys: Equatable, Sendable {
    public static let possessionIndex: UInt64 = 1
    public static let knowledgeIndex: UInt64 = 2
    public static let biometryIndex: UInt64 = 3
    public static let transportIndex: UInt64 = 1000
    public static let vaultIndex: UInt64 = 2000

    public var possession: [UInt8]
    public var knowledge: [UInt8]
    public var biometry: [UInt8]
    public var transport: [UInt8]
    public var vault: [UInt8]

    public init(masterSecret: [UInt8]) {
        possession = KeyDerivation.derive(masterSecret, index: Self.possessionIndex)
        knowledge = KeyDerivation.derive(masterSecret, index: Self.knowledgeIndex)
        biometry = KeyDerivation.derive(masterSecret, index: Self.biometryIndex)
        transport = KeyDerivation.derive(masterSecret, index: Self.transportIndex)
        vault = KeyDerivation.derive(masterSecret, index: Self.vaultIndex)
    }
}

import Crypto
import _CryptoExtras

/// How the knowledge-factor key is kept at rest: AES-128-CBC (no padding, zero IV)
/// under a key stretched from the PIN with PBKDF2-HMAC-SHA1 and a random 16-byte
/// salt, as PowerAuth specifies (at least 10,000 rounds; this uses 210,000, the
/// floor swift-crypto enforces for new keys). The encryption is deliberately unauthenticated:
/// a wrong PIN yields a wrong key, and only the server can tell.
public struct ProtectedKnowledgeKey: Equatable, Sendable {
    public static let defaultIterations = 210_000
    /// The protocol's minimum; a stored key with fewer rounds is refused.
    public static let minimumIterations = 10_000

    public var encryptedKey: [UInt8]
    public var salt: [UInt8]
    public var iterations: Int

    public init(encryptedKey: [UInt8], salt: [UInt8], iterations: Int) {
        self.encryptedKey = encryptedKey
        self.salt = salt
        self.iterations = iterations
    }

    public static func protect(
        _ knowledgeKey: [UInt8], pin: [UInt8], iterations: Int = defaultIterations
    ) throws -> ProtectedKnowledgeKey {
        let salt = Bytes.random(16)
        let key = try stretch(pin: pin, salt: salt, iterations: iterations)
        let encrypted = try Symmetric.aesEncrypt(
            knowledgeKey, key: key, iv: [UInt8](repeating: 0, count: 16), padding: false)
        return ProtectedKnowledgeKey(encryptedKey: encrypted, salt: salt, iterations: iterations)
    }

    public func unlock(pin: [UInt8]) throws -> [UInt8] {
        let key = try Self.stretch(pin: pin, salt: salt, iterations: iterations)
        return try Symmetric.aesDecrypt(encryptedKey, key: key, iv: [UInt8](repeating: 0, count: 16), padding: false)
    }

    private static func stretch(pin: [UInt8], salt: [UInt8], iterations: Int) throws -> [UInt8] {
        guard iterations >= minimumIterations else {
            throw PowerAuthError.invalidKey("PIN key stretching with \(iterations) rounds")
        }
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: pin, salt: salt, using: .insecureSHA1, outputByteCount: 16, unsafeUncheckedRounds: iterations)
        return key.withUnsafeBytes { Array($0) }
    }
}

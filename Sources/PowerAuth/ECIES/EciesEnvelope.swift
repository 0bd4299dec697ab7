import Crypto
import Foundation

/// The keys of one ECIES request/response cycle:
/// `KEY_SECRET = X9.63-KDF-SHA256(ECDH, VERSION ‖ SH1 ‖ KEY_EPH_PUB, 48)` split into
/// encryption, MAC and IV keys. One envelope serves exactly one request and its response.
public struct EciesEnvelope: Sendable {
    let encryptionKey: [UInt8]
    let macKey: [UInt8]
    let ivKey: [UInt8]

    init(
        privateKey: P256.KeyAgreement.PrivateKey, publicKey: P256.KeyAgreement.PublicKey, ephemeralPublicKey: [UInt8],
        sharedInfo1: [UInt8]
    ) throws {
        let secret = try privateKey.sharedSecretFromKeyAgreement(with: publicKey)
        let info = Bytes.utf8(PowerAuthVersion.current) + sharedInfo1 + ephemeralPublicKey
        let derived = secret.x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: info, outputByteCount: 48)
        let bytes = derived.withUnsafeBytes { Array($0) }
        encryptionKey = Array(bytes[0..<16])
        macKey = Array(bytes[16..<32])
        ivKey = Array(bytes[32..<48])
    }

    /// `IV = KDF_INTERNAL(KEY_IV, NONCE)`.
    func iv(nonce: [UInt8]) -> [UInt8] {
        KeyDerivation.deriveInternal(ivKey, data: nonce)
    }

    func seal(
        _ plaintext: [UInt8], parameters: EciesParameters, nonce: [UInt8], timestamp: Int64,
        ephemeralPublicKey: [UInt8]?
    ) throws -> EciesPayload {
        let encrypted = try Symmetric.aesEncrypt(plaintext, key: encryptionKey, iv: iv(nonce: nonce))
        let sharedInfo2 = parameters.sharedInfo2(
            nonce: nonce, timestamp: timestamp, ephemeralPublicKey: ephemeralPublicKey)
        let mac = Symmetric.hmacSHA256(key: macKey, data: encrypted + sharedInfo2)
        return EciesPayload(
            ephemeralPublicKey: ephemeralPublicKey.map(Bytes.base64String),
            encryptedData: Bytes.base64String(encrypted),
            mac: Bytes.base64String(mac),
            nonce: Bytes.base64String(nonce),
            timestamp: timestamp
        )
    }

    /// Checks the MAC first, then decrypts; nothing is decrypted when the MAC is wrong.
    func open(_ payload: EciesPayload, parameters: EciesParameters, ephemeralPublicKey: [UInt8]?) throws -> [UInt8] {
        let decoded = try payload.decoded()
        let sharedInfo2 = parameters.sharedInfo2(
            nonce: decoded.nonce, timestamp: payload.timestamp, ephemeralPublicKey: ephemeralPublicKey)
        let expected = Symmetric.hmacSHA256(key: macKey, data: decoded.encryptedData + sharedInfo2)
        guard Bytes.constantTimeEqual(expected, decoded.mac) else { throw PowerAuthError.macMismatch }
        return try Symmetric.aesDecrypt(decoded.encryptedData, key: encryptionKey, iv: iv(nonce: decoded.nonce))
    }
}

public enum EciesClock {
    public static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}

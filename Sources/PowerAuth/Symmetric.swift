import Crypto
import Foundation
import _CryptoExtras

/// The symmetric primitives PowerAuth names, on swift-crypto.
public enum Symmetric {
    public static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }

    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: data))
    }

    /// AES-CBC. With `padding` false the input must be whole blocks.
    public static func aesEncrypt(_ data: [UInt8], key: [UInt8], iv: [UInt8], padding: Bool = true) throws -> [UInt8] {
        guard key.count == 16 else { throw PowerAuthError.invalidLength("AES key", expected: 16, actual: key.count) }
        do {
            let vector = try AES._CBC.IV(ivBytes: iv)
            return Array(try AES._CBC.encrypt(data, using: SymmetricKey(data: key), iv: vector, noPadding: !padding))
        } catch {
            throw PowerAuthError.decryptionFailed
        }
    }

    public static func aesDecrypt(_ data: [UInt8], key: [UInt8], iv: [UInt8], padding: Bool = true) throws -> [UInt8] {
        guard key.count == 16 else { throw PowerAuthError.invalidLength("AES key", expected: 16, actual: key.count) }
        guard !data.isEmpty, data.count % 16 == 0 else { throw PowerAuthError.decryptionFailed }
        do {
            let vector = try AES._CBC.IV(ivBytes: iv)
            return Array(try AES._CBC.decrypt(data, using: SymmetricKey(data: key), iv: vector, noPadding: !padding))
        } catch {
            throw PowerAuthError.decryptionFailed
        }
    }
}

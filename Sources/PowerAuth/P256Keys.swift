import Crypto
import Foundation

/// P-256 key handling: parsing the encodings PowerAuth uses and the ECDH it builds on.
public enum P256Keys {
    /// A private key from a big-endian scalar, 32 bytes or 33 with a leading zero.
    public static func privateKey(_ bytes: [UInt8]) throws -> P256.KeyAgreement.PrivateKey {
        guard let scalar = Bytes.unsignedFixedWidth(bytes, count: 32) else {
            throw PowerAuthError.invalidKey("private key")
        }
        do { return try P256.KeyAgreement.PrivateKey(rawRepresentation: scalar) } catch {
            throw PowerAuthError.invalidKey("private key")
        }
    }

    /// A public key from its X9.63 form, uncompressed (65 bytes) or compressed (33 bytes).
    public static func publicKey(_ bytes: [UInt8], what: String = "public key") throws -> P256.KeyAgreement.PublicKey {
        do {
            switch bytes.count {
            case 65: return try P256.KeyAgreement.PublicKey(x963Representation: bytes)
            case 33: return try P256.KeyAgreement.PublicKey(compressedRepresentation: bytes)
            default: throw PowerAuthError.invalidKey(what)
            }
        } catch {
            throw PowerAuthError.invalidKey(what)
        }
    }

    /// The raw 32-byte ECDH result (x coordinate of the shared point), untrimmed.
    public static func sharedSecret(
        _ privateKey: P256.KeyAgreement.PrivateKey, _ publicKey: P256.KeyAgreement.PublicKey
    ) throws -> [UInt8] {
        let secret = try privateKey.sharedSecretFromKeyAgreement(with: publicKey)
        return secret.withUnsafeBytes { Array($0) }
    }

    /// `KEY_MASTER_SECRET`: the ECDH result folded to 16 bytes.
    public static func masterSecret(
        _ privateKey: P256.KeyAgreement.PrivateKey, _ publicKey: P256.KeyAgreement.PublicKey
    ) throws -> [UInt8] {
        Bytes.fold(try sharedSecret(privateKey, publicKey))
    }

    /// The x coordinate of a public key as an unsigned big-endian integer without leading zeros.
    public static func xCoordinate(_ publicKey: P256.KeyAgreement.PublicKey) -> [UInt8] {
        let x963 = Array(publicKey.x963Representation)
        var x = x963[1...32]
        while x.count > 1, x.first == 0 { x = x.dropFirst() }
        return Array(x)
    }
}

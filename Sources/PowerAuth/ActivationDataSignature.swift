import Crypto
import Foundation

/// ECDSA (P-256, SHA-256, DER) signatures of activation data with the master key pair.
public enum ActivationDataSignature {
    public static func verify(_ data: [UInt8], signatureDER: [UInt8], masterPublicKey: [UInt8]) throws -> Bool {
        let key: P256.Signing.PublicKey
        do {
            key = try P256.Signing.PublicKey(x963Representation: masterPublicKey)
        } catch {
            throw PowerAuthError.invalidKey("master public key")
        }
        guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signatureDER) else { return false }
        return key.isValidSignature(signature, for: data)
    }

    public static func sign(_ data: [UInt8], masterPrivateKey: [UInt8]) throws -> [UInt8] {
        guard let scalar = Bytes.unsignedFixedWidth(masterPrivateKey, count: 32),
            let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar)
        else { throw PowerAuthError.invalidKey("master private key") }
        return Array(try key.signature(for: data).derRepresentation)
    }
}

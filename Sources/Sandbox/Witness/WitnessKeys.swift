import Crypto
import Foundation

/// A log key the witness trusts, read from its verifier key text `NAME+HASH+BASE64(0x01 ‖
/// public key)`.
public struct TrustedLogKey: Sendable {
    let name: String
    let keyHash: [UInt8]
    let publicKey: [UInt8]

    /// nil when `text` is not an Ed25519 note verifier key whose hash matches.
    public init?(verifierKey text: String) {
        let parts = text.split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[1].count == 8, let hash = UInt32(parts[1], radix: 16),
            let key = Data(base64Encoded: String(parts[2])), key.count == 33, key.first == 0x01
        else { return nil }
        let expected = Array(SHA256.hash(data: Array(parts[0].utf8) + [0x0A] + Array(key)).prefix(4))
        guard expected == withUnsafeBytes(of: hash.bigEndian, Array.init) else { return nil }
        name = String(parts[0])
        keyHash = expected
        publicKey = Array(key.dropFirst())
    }

    /// Whether one of the note's signature lines is this key's, and verifies.
    func signed(_ submission: WitnessSubmission) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return submission.signatures.contains { signature in
            signature.name == name && Array(signature.bytes.prefix(4)) == keyHash
                && key.isValidSignature(signature.bytes.dropFirst(4), for: submission.text)
        }
    }
}

/// The witness's own Ed25519 cosigning key (C2SP tlog-cosignature, `cosignature/v1`).
struct CosignerKey: Sendable {
    let name: String
    private let seed: [UInt8]
    let publicKey: [UInt8]

    init(name: String) {
        let key = Curve25519.Signing.PrivateKey()
        self.name = name
        seed = Array(key.rawRepresentation)
        publicKey = Array(key.publicKey.rawRepresentation)
    }

    /// SHA-256(name ‖ "\n" ‖ 0x04 ‖ public key), first four bytes.
    var keyHash: [UInt8] {
        Array(SHA256.hash(data: Array(name.utf8) + [0x0A, 0x04] + publicKey).prefix(4))
    }

    /// `NAME+HASH+BASE64(0x04 ‖ public key)`, to give the log.
    var verifierKey: String {
        "\(name)+" + keyHash.map { String(format: "%02x", $0) }.joined() + "+"
            + Data([0x04] + publicKey).base64EncodedString()
    }

    /// The signature line for `text` (the checkpoint's lines) at `time`.
    func cosign(_ text: [UInt8], time: UInt64) -> String {
        let message = Array("cosignature/v1\ntime \(time)\n".utf8) + text
        let signature =
            (try? Curve25519.Signing.PrivateKey(rawRepresentation: seed).signature(for: message)).map(Array.init) ?? []
        let timestamp = (0..<8).reversed().map { UInt8(truncatingIfNeeded: time >> (8 * $0)) }
        return "— \(name) " + Data(keyHash + timestamp + signature).base64EncodedString() + "\n"
    }
}

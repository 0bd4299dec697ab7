import Crypto
import Foundation

/// Checks a signed note's signatures by one named Ed25519 key.
public struct NoteVerifier: Sendable {
    public let name: String
    public let keyHash: UInt32
    /// The raw Ed25519 public key (kept as bytes: swift-crypto's key type is not Sendable).
    let publicKey: [UInt8]

    /// A verifier key's text (`NAME+HASH+BASE64`).
    public init(verifierKey text: String) throws(NoteKey.Invalid) {
        let (name, publicKey) = try NoteKey.ed25519(verifierKey: text, algorithm: NoteKey.ed25519)
        self.init(name: name, publicKey: publicKey)
    }

    init(name: String, publicKey: [UInt8]) {
        self.name = name
        self.publicKey = publicKey
        keyHash = NoteKey.hash(name: name, key: [NoteKey.ed25519] + publicKey)
    }

    /// The verifier key's text, to publish.
    public var verifierKey: String {
        NoteKey.text(name: name, keyHash: keyHash, algorithm: NoteKey.ed25519, publicKey: publicKey)
    }

    public func verify(_ message: [UInt8], signature: [UInt8]) -> Bool {
        (try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey))?.isValidSignature(signature, for: message)
            ?? false
    }
}

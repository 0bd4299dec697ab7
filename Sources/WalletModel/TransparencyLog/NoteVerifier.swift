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
        let (name, hash, key) = try NoteKey.parts(text)
        guard key.first == NoteKey.ed25519, key.count == 33 else { throw NoteKey.Invalid("the key is not an Ed25519 public key") }
        guard NoteKey.hash(name: name, key: key) == hash else { throw NoteKey.Invalid("the key's hash does not match its name and key") }
        guard (try? Curve25519.Signing.PublicKey(rawRepresentation: key.dropFirst())) != nil else {
            throw NoteKey.Invalid("the key is not an Ed25519 public key")
        }
        self.init(name: name, publicKey: Array(key.dropFirst()))
    }

    init(name: String, publicKey: [UInt8]) {
        self.name = name
        self.publicKey = publicKey
        keyHash = NoteKey.hash(name: name, key: [NoteKey.ed25519] + publicKey)
    }

    /// The verifier key's text, to publish.
    public var verifierKey: String {
        "\(name)+\(NoteKey.hex(keyHash))+" + Data([NoteKey.ed25519] + publicKey).base64EncodedString()
    }

    public func verify(_ message: [UInt8], signature: [UInt8]) -> Bool {
        (try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey))?.isValidSignature(signature, for: message) ?? false
    }
}

import Crypto
import Foundation

/// Signs notes with one named Ed25519 key.
public struct NoteSigner: Sendable {
    public let verifier: NoteVerifier
    /// The Ed25519 seed: the secret.
    let seed: [UInt8]

    public var name: String { verifier.name }
    public var keyHash: UInt32 { verifier.keyHash }
    /// The key hash as a stored checkpoint names it (``StoredCheckpoint/keyID``).
    public var keyID: String { NoteKey.hex(keyHash) }

    /// A signer key's text (`PRIVATE+KEY+NAME+HASH+BASE64`); a secret.
    public init(signerKey text: String) throws(NoteKey.Invalid) {
        let prefix = "PRIVATE+KEY+"
        guard text.hasPrefix(prefix) else { throw NoteKey.Invalid("a signer key starts with PRIVATE+KEY+") }
        let (name, hash, key) = try NoteKey.parts(String(text.dropFirst(prefix.count)))
        guard key.first == NoteKey.ed25519, key.count == 33,
            let privateKey = try? Curve25519.Signing.PrivateKey(rawRepresentation: key.dropFirst())
        else {
            throw NoteKey.Invalid("the key is not an Ed25519 private key")
        }
        let signer = NoteSigner(name: name, privateKey: privateKey)
        guard signer.keyHash == hash else { throw NoteKey.Invalid("the key's hash does not match its name and key") }
        self = signer
    }

    init(name: String, privateKey: Curve25519.Signing.PrivateKey) {
        seed = Array(privateKey.rawRepresentation)
        verifier = NoteVerifier(name: name, publicKey: Array(privateKey.publicKey.rawRepresentation))
    }

    /// A new key named `name` (an origin, such as `bank.example/tokenctl`).
    public static func generate(name: String) throws(NoteKey.Invalid) -> NoteSigner {
        guard NoteKey.isValidName(name) else {
            throw NoteKey.Invalid("a key's name must not be empty or hold a space or +")
        }
        return NoteSigner(name: name, privateKey: Curve25519.Signing.PrivateKey())
    }

    /// The signer key's text: a secret, for a private file only.
    public var signerKey: String {
        "PRIVATE+KEY+\(name)+\(NoteKey.hex(keyHash))+" + Data([NoteKey.ed25519] + seed).base64EncodedString()
    }

    func sign(_ message: [UInt8]) throws -> [UInt8] {
        Array(try Curve25519.Signing.PrivateKey(rawRepresentation: seed).signature(for: message))
    }
}

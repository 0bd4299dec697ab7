import Crypto
import Foundation

/// The keys of signed notes, in the text forms of golang.org/x/mod/sumdb/note (C2SP
/// signed-note): a verifier key `NAME+HASH+BASE64(0x01 ‖ public key)` and a signer key
/// `PRIVATE+KEY+NAME+HASH+BASE64(0x01 ‖ seed)`, Ed25519; HASH is 8 hex digits, the first
/// four bytes of SHA-256(NAME ‖ "\n" ‖ 0x01 ‖ public key).
public enum NoteKey {
    /// The algorithm byte of an Ed25519 key.
    static let ed25519: UInt8 = 0x01

    /// Why a key's text is refused: never the key's bytes.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// A name a key and a signature line may carry: not empty, valid UTF-8, no white space
    /// and no `+`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.unicodeScalars.contains { $0.properties.isWhitespace || $0 == "+" }
    }

    /// The key hash of a name and an encoded public key (algorithm byte first).
    static func hash(name: String, key: [UInt8]) -> UInt32 {
        let digest = Array(SHA256.hash(data: Array(name.utf8) + [0x0A] + key))
        return digest.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func hex(_ hash: UInt32) -> String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// `NAME+HASH+KEY` split, the hash checked as 8 hex digits, the key as base64.
    static func parts(_ text: String) throws(Invalid) -> (name: String, hash: UInt32, key: [UInt8]) {
        let fields = text.split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3 else { throw Invalid("a key is NAME+HASH+KEY") }
        let name = String(fields[0]), hashText = fields[1]
        guard isValidName(name) else { throw Invalid("the key's name is empty or holds a space or +") }
        guard hashText.utf8.count == 8, hashText.utf8.allSatisfy({ Hex.value(of: $0) != nil }), let hash = UInt32(hashText, radix: 16) else {
            throw Invalid("the key's hash is not 8 hex digits")
        }
        guard let key = Data(base64Encoded: String(fields[2])).map(Array.init), !key.isEmpty else { throw Invalid("the key is not base64") }
        return (name, hash, key)
    }
}

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

/// Signs notes with one named Ed25519 key.
public struct NoteSigner: Sendable {
    public let verifier: NoteVerifier
    /// The Ed25519 seed: the secret.
    let seed: [UInt8]

    public var name: String { verifier.name }
    public var keyHash: UInt32 { verifier.keyHash }

    /// A signer key's text (`PRIVATE+KEY+NAME+HASH+BASE64`); a secret.
    public init(signerKey text: String) throws(NoteKey.Invalid) {
        let prefix = "PRIVATE+KEY+"
        guard text.hasPrefix(prefix) else { throw NoteKey.Invalid("a signer key starts with PRIVATE+KEY+") }
        let (name, hash, key) = try NoteKey.parts(String(text.dropFirst(prefix.count)))
        guard key.first == NoteKey.ed25519, key.count == 33, let privateKey = try? Curve25519.Signing.PrivateKey(rawRepresentation: key.dropFirst()) else {
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
        guard NoteKey.isValidName(name) else { throw NoteKey.Invalid("a key's name must not be empty or hold a space or +") }
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

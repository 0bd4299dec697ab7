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

    /// A key hash as 8 hex digits, as key texts and messages give it.
    public static func hex(_ hash: UInt32) -> String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// `NAME+HASH+KEY` split, the hash checked as 8 hex digits, the key as base64.
    static func parts(_ text: String) throws(Invalid) -> (name: String, hash: UInt32, key: [UInt8]) {
        let fields = text.split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3 else { throw Invalid("a key is NAME+HASH+KEY") }
        let name = String(fields[0]), hashText = fields[1]
        guard isValidName(name) else { throw Invalid("the key's name is empty or holds a space or +") }
        guard hashText.utf8.count == 8, hashText.allSatisfy(\.isHexDigit), let hash = UInt32(hashText, radix: 16) else {
            throw Invalid("the key's hash is not 8 hex digits")
        }
        guard let key = Data(base64Encoded: String(fields[2])).map(Array.init), !key.isEmpty else {
            throw Invalid("the key is not base64")
        }
        return (name, hash, key)
    }

    /// A verifier key's text read as an Ed25519 key of `algorithm` (0x01 for a log's notes,
    /// 0x04 for a cosigner): its name and raw public key, the hash checked.
    static func ed25519(
        verifierKey text: String, algorithm: UInt8
    ) throws(Invalid) -> (name: String, publicKey: [UInt8]) {
        let (name, hash, key) = try parts(text)
        guard key.first == algorithm, key.count == 33,
            (try? Curve25519.Signing.PublicKey(rawRepresentation: key.dropFirst())) != nil
        else {
            throw Invalid("the key is not an Ed25519 key of algorithm \(algorithm)")
        }
        guard NoteKey.hash(name: name, key: key) == hash else {
            throw Invalid("the key's hash does not match its name and key")
        }
        return (name, Array(key.dropFirst()))
    }

    /// A verifier key's text, `NAME+HASH+BASE64(algorithm ‖ public key)`.
    static func text(name: String, keyHash: UInt32, algorithm: UInt8, publicKey: [UInt8]) -> String {
        "\(name)+\(hex(keyHash))+" + Data([algorithm] + publicKey).base64EncodedString()
    }
}

import Crypto
import Foundation

/// Ed25519 cosignatures (C2SP tlog-cosignature, `cosignature/v1`): a witness's note
/// signature on a checkpoint, over "cosignature/v1\ntime T\n" and the checkpoint's body,
/// carrying the time T (8 bytes, big-endian) before the 64-byte signature. A cosigner's key
/// is a note key whose algorithm byte is 0x04.
public enum Cosignature {
    static let algorithm: UInt8 = 0x04

    /// What a cosignature signs for `checkpoint` (its note text) at `time`.
    static func message(checkpoint: String, time: UInt64) -> [UInt8] {
        Array("cosignature/v1\ntime \(time)\n\(checkpoint)".utf8)
    }

    /// Checks cosignatures by one named key.
    public struct Verifier: Sendable {
        public let name: String
        public let keyHash: UInt32
        let publicKey: [UInt8]

        /// A verifier key's text, `NAME+HASH+BASE64(0x04 ‖ public key)`.
        public init(verifierKey text: String) throws(NoteKey.Invalid) {
            let (name, publicKey) = try NoteKey.ed25519(verifierKey: text, algorithm: Cosignature.algorithm)
            self.init(name: name, publicKey: publicKey)
        }

        init(name: String, publicKey: [UInt8]) {
            self.name = name
            self.publicKey = publicKey
            keyHash = NoteKey.hash(name: name, key: [Cosignature.algorithm] + publicKey)
        }

        public var verifierKey: String {
            NoteKey.text(name: name, keyHash: keyHash, algorithm: Cosignature.algorithm, publicKey: publicKey)
        }

        /// The time a signature line's base64 (key hash ‖ time ‖ signature) cosigned
        /// `checkpoint` at; nil when it is not this key's valid cosignature.
        public func time(of signature: SignedNote.Signature, on checkpoint: String) -> UInt64? {
            guard signature.name == name, signature.keyHash == keyHash,
                let raw = Data(base64Encoded: signature.base64).map(Array.init), raw.count == 4 + 8 + 64
            else { return nil }
            let time = raw[4..<12].reduce(0) { $0 << 8 | UInt64($1) }
            guard time < 1 << 63, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey),
                key.isValidSignature(raw[12...], for: Cosignature.message(checkpoint: checkpoint, time: time))
            else { return nil }
            return time
        }
    }

    /// Makes cosignatures (a witness does; the sandbox's does).
    public struct Signer: Sendable {
        public let verifier: Verifier
        let seed: [UInt8]

        /// The signer of a known Ed25519 seed (32 bytes).
        public init(name: String, seed: [UInt8]) throws {
            guard NoteKey.isValidName(name) else {
                throw NoteKey.Invalid("a key's name must not be empty or hold a space or +")
            }
            let key = try Curve25519.Signing.PrivateKey(rawRepresentation: seed)
            self.init(verifier: Verifier(name: name, publicKey: Array(key.publicKey.rawRepresentation)), seed: seed)
        }

        init(verifier: Verifier, seed: [UInt8]) {
            self.verifier = verifier
            self.seed = seed
        }

        public static func generate(name: String) throws(NoteKey.Invalid) -> Signer {
            guard NoteKey.isValidName(name) else {
                throw NoteKey.Invalid("a key's name must not be empty or hold a space or +")
            }
            let key = Curve25519.Signing.PrivateKey()
            return Signer(
                verifier: Verifier(name: name, publicKey: Array(key.publicKey.rawRepresentation)),
                seed: Array(key.rawRepresentation))
        }

        /// The signature line's fields for `checkpoint` (its note text) at `time`.
        public func cosign(_ checkpoint: String, time: UInt64) throws -> SignedNote.Signature {
            let signature = try Curve25519.Signing.PrivateKey(rawRepresentation: seed).signature(
                for: Cosignature.message(checkpoint: checkpoint, time: time))
            let raw =
                withUnsafeBytes(of: verifier.keyHash.bigEndian) { Array($0) }
                + withUnsafeBytes(of: time.bigEndian) { Array($0) } + Array(signature)
            return SignedNote.Signature(
                name: verifier.name, keyHash: verifier.keyHash, base64: Data(raw).base64EncodedString())
        }
    }
}

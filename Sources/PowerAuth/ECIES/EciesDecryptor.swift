import Crypto
import Synchronization

/// The server side of ECIES: decrypts a request with the private key and
/// encrypts the response with the same envelope.
public struct EciesDecryptor {
    public let privateKey: P256.KeyAgreement.PrivateKey
    public let parameters: EciesParameters

    public init(privateKey: P256.KeyAgreement.PrivateKey, parameters: EciesParameters) {
        self.privateKey = privateKey
        self.parameters = parameters
    }

    public func decryptRequest(_ payload: EciesPayload) throws -> (plaintext: [UInt8], response: EciesResponseEncryptor)
    {
        guard let keyText = payload.ephemeralPublicKey else {
            throw PowerAuthError.malformedPayload("ephemeralPublicKey is missing")
        }
        guard let keyBytes = Bytes.base64(keyText) else { throw PowerAuthError.invalidBase64("ephemeralPublicKey") }
        let ephemeral = try P256Keys.publicKey(keyBytes, what: "ephemeral public key")
        let envelope = try EciesEnvelope(
            privateKey: privateKey, publicKey: ephemeral, ephemeralPublicKey: keyBytes,
            sharedInfo1: parameters.sharedInfo1)
        let plaintext = try envelope.open(payload, parameters: parameters, ephemeralPublicKey: keyBytes)
        return (plaintext, EciesResponseEncryptor(envelope: envelope, parameters: parameters))
    }
}

public struct EciesResponseEncryptor: Sendable {
    let envelope: EciesEnvelope
    let parameters: EciesParameters

    public func encryptResponse(
        _ plaintext: [UInt8], nonce: [UInt8] = Bytes.random(16), timestamp: Int64 = EciesClock.nowMilliseconds()
    ) throws -> EciesPayload {
        try envelope.seal(
            plaintext, parameters: parameters, nonce: nonce, timestamp: timestamp, ephemeralPublicKey: nil)
    }
}

/// Rejects requests whose timestamp is outside a window around now and nonces
/// already seen within that window (the server's replay check).
public final class EciesReplayGuard: Sendable {
    public let windowMilliseconds: Int64
    private let seen = Mutex<[[UInt8]: Int64]>([:])

    public init(windowMilliseconds: Int64 = 60_000) {
        self.windowMilliseconds = windowMilliseconds
    }

    public func check(_ payload: EciesPayload, now: Int64 = EciesClock.nowMilliseconds()) throws {
        guard let nonce = Bytes.base64(payload.nonce) else { throw PowerAuthError.invalidBase64("nonce") }
        try check(timestamp: payload.timestamp, nonce: nonce, now: now)
    }

    /// The same check for any timestamped, nonced message (MAC token headers too).
    public func check(timestamp: Int64, nonce: [UInt8], now: Int64 = EciesClock.nowMilliseconds()) throws {
        let age = now - timestamp
        guard abs(age) <= windowMilliseconds else { throw PowerAuthError.staleTimestamp(ageMilliseconds: age) }
        let window = windowMilliseconds
        try seen.withLock { seen in
            seen = seen.filter { now - $0.value <= window }
            guard seen[nonce] == nil else { throw PowerAuthError.replayedNonce }
            seen[nonce] = timestamp
        }
    }
}

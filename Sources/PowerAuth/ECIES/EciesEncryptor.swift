import Crypto

/// The client side of ECIES: encrypts a request to the server's public key and
/// decrypts the response of that same request.
public struct EciesEncryptor {
    public let publicKey: P256.KeyAgreement.PublicKey
    public let parameters: EciesParameters

    public init(publicKey: P256.KeyAgreement.PublicKey, parameters: EciesParameters) {
        self.publicKey = publicKey
        self.parameters = parameters
    }

    /// Encrypts `plaintext` with a fresh ephemeral key, nonce and timestamp; the
    /// returned context decrypts the one response that belongs to this request.
    public func encryptRequest(
        _ plaintext: [UInt8], timestamp: Int64 = EciesClock.nowMilliseconds()
    ) throws -> (payload: EciesPayload, response: EciesResponseDecryptor) {
        try encryptRequest(
            plaintext, ephemeral: P256.KeyAgreement.PrivateKey(), nonce: Bytes.random(16), timestamp: timestamp)
    }

    /// The same with every random input given: for reproducing reference fixtures.
    public func encryptRequest(
        _ plaintext: [UInt8], ephemeral: P256.KeyAgreement.PrivateKey, nonce: [UInt8], timestamp: Int64
    ) throws -> (payload: EciesPayload, response: EciesResponseDecryptor) {
        let ephemeralPublic = Array(ephemeral.publicKey.compressedRepresentation)
        let envelope = try EciesEnvelope(
            privateKey: ephemeral, publicKey: publicKey, ephemeralPublicKey: ephemeralPublic,
            sharedInfo1: parameters.sharedInfo1)
        let payload = try envelope.seal(
            plaintext, parameters: parameters, nonce: nonce, timestamp: timestamp, ephemeralPublicKey: ephemeralPublic)
        return (payload, EciesResponseDecryptor(envelope: envelope, parameters: parameters))
    }
}

public struct EciesResponseDecryptor: Sendable {
    let envelope: EciesEnvelope
    let parameters: EciesParameters

    public func decryptResponse(_ payload: EciesPayload) throws -> [UInt8] {
        try envelope.open(payload, parameters: parameters, ephemeralPublicKey: nil)
    }
}

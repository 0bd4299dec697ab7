/// The JSON body of an encrypted request (with `ephemeralPublicKey`) or response (without).
public struct EciesPayload: Codable, Equatable, Sendable {
    public var ephemeralPublicKey: String?
    public var encryptedData: String
    public var mac: String
    public var nonce: String
    public var timestamp: Int64

    public init(ephemeralPublicKey: String?, encryptedData: String, mac: String, nonce: String, timestamp: Int64) {
        self.ephemeralPublicKey = ephemeralPublicKey
        self.encryptedData = encryptedData
        self.mac = mac
        self.nonce = nonce
        self.timestamp = timestamp
    }

    struct Decoded {
        var ephemeralPublicKey: [UInt8]?
        var encryptedData: [UInt8]
        var mac: [UInt8]
        var nonce: [UInt8]
    }

    func decoded() throws -> Decoded {
        func field(_ name: String, _ text: String) throws -> [UInt8] {
            guard let bytes = Bytes.base64(text) else { throw PowerAuthError.invalidBase64(name) }
            return bytes
        }
        let decoded = Decoded(
            ephemeralPublicKey: try ephemeralPublicKey.map { try field("ephemeralPublicKey", $0) },
            encryptedData: try field("encryptedData", encryptedData),
            mac: try field("mac", mac),
            nonce: try field("nonce", nonce)
        )
        guard decoded.nonce.count == 16 else {
            throw PowerAuthError.invalidLength("nonce", expected: 16, actual: decoded.nonce.count)
        }
        guard decoded.mac.count == 32 else {
            throw PowerAuthError.invalidLength("mac", expected: 32, actual: decoded.mac.count)
        }
        guard !decoded.encryptedData.isEmpty, decoded.encryptedData.count % 16 == 0 else {
            throw PowerAuthError.malformedPayload("encryptedData is not a whole number of AES blocks")
        }
        return decoded
    }
}

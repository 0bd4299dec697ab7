/// MAC-token authentication: `token_digest = HMAC-SHA256(secret, nonce ‖ "&" ‖ timestamp ‖ "&" ‖ version)`.
public enum TokenDigest {
    public static func compute(
        tokenSecret: [UInt8], nonce: [UInt8], timestampMilliseconds: Int64, version: String = PowerAuthVersion.current
    ) -> [UInt8] {
        let data =
            nonce + Bytes.utf8("&") + Bytes.utf8(String(timestampMilliseconds)) + Bytes.utf8("&") + Bytes.utf8(version)
        return Symmetric.hmacSHA256(key: tokenSecret, data: data)
    }
}

public enum PowerAuthVersion {
    /// The one protocol version this implementation speaks.
    public static let current = "3.2"
}

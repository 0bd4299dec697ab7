import Crypto
import Foundation

/// A compact JWS (`header.payload.signature`, base64url) with ES256, signed and verified by
/// swift-crypto: the id_token of the simulated OIDC provider.
enum IDToken {
    static func sign(claims: [String: Any], key: P256.Signing.PrivateKey) throws -> String {
        let header = try JSONSerialization.data(
            withJSONObject: ["alg": "ES256", "typ": "JWT", "kid": "sandbox"], options: [.sortedKeys])
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let signingInput = base64URL(header) + "." + base64URL(payload)
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + base64URL(signature.rawRepresentation)
    }

    /// The claims of a token whose ES256 signature `key` verifies; nil for anything else.
    static func verifiedClaims(_ token: String, key: P256.Signing.PublicKey) -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = data(base64URL: parts[0]),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            header["alg"] as? String == "ES256",
            let signatureData = data(base64URL: parts[2]),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
            key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)),
            let payloadData = data(base64URL: parts[1])
        else { return nil }
        return try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any]
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

import Crypto

/// The activation fingerprint of protocol 3: eight decimal digits both sides show
/// so a user can compare the exchanged public keys.
public enum Fingerprint {
    public static func compute(
        devicePublicKey: P256.KeyAgreement.PublicKey, serverPublicKey: P256.KeyAgreement.PublicKey, activationId: String
    ) -> String {
        let data =
            P256Keys.xCoordinate(devicePublicKey) + Bytes.utf8(activationId) + P256Keys.xCoordinate(serverPublicKey)
        let hash = Symmetric.sha256(data)
        let number = hash.suffix(4).reduce(UInt32(0)) { ($0 << 8) | UInt32($1) } & 0x7FFF_FFFF
        let text = String(number % 100_000_000)
        return String(repeating: "0", count: 8 - text.count) + text
    }
}

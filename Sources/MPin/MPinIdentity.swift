import HexCoding

/// An M-Pin identity: the `mpinId` the platform returns at registration (the hex of a JSON
/// document) and its point H(ID), hashed from the decoded bytes.
public struct MPinIdentity: Sendable, Equatable {
    /// The `mpinId` as the wire carries it (lowercase hex).
    public let mpinIdHex: String
    /// H(ID).
    public let hashed: G1Point

    /// - Throws: `MPinCryptoError.invalidScalar` when `mpinIdHex` is empty or not hex.
    public init(mpinIdHex: String) throws(MPinCryptoError) {
        guard !mpinIdHex.isEmpty, let bytes = Hex.decode(mpinIdHex) else { throw .invalidScalar }
        self.mpinIdHex = mpinIdHex.lowercased()
        hashed = G1Point.hashToCurve(bytes).point
    }
}

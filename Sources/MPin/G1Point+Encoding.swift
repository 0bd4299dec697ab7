import HexCoding

extension G1Point {
    /// Reads `04‖x‖y` (65 bytes): both coordinates below p and the point on the curve.
    /// - Throws: `MPinCryptoError.invalidPoint` for anything else, the point at infinity included
    ///   (it has no such encoding).
    public init(encoded bytes: [UInt8]) throws(MPinCryptoError) {
        guard bytes.count == 65, bytes[0] == 0x04,
            let x = UInt256(bigEndian: bytes[1..<33]), x < Curve.p,
            let y = UInt256(bigEndian: bytes[33..<65]), y < Curve.p,
            let point = G1Point(affineX: FieldElement(x), affineY: FieldElement(y))
        else { throw .invalidPoint }
        self = point
    }

    /// Reads the hex form the M-Pin wire uses.
    public init(hex: String) throws(MPinCryptoError) {
        guard let bytes = Hex.decode(hex) else { throw .invalidPoint }
        try self.init(encoded: bytes)
    }

    /// `04‖x‖y`; nil for the point at infinity, which has no such encoding.
    public var encoded: [UInt8]? {
        guard let (x, y) = affine else { return nil }
        return [0x04] + x.value.bigEndianBytes + y.value.bigEndianBytes
    }

    /// The lowercase hex of `encoded`.
    public var hex: String? { encoded.map(Hex.encode) }
}

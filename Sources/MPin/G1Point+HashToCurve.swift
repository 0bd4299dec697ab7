import Crypto

extension G1Point {
    /// H(ID) of the M-Pin core (`ECP_mapit`): x = SHA-256(id) mod p, incremented until x³ + 2 is a
    /// square; the point with the even y.
    /// - Returns: the point and how many increments it took (the recording's ids need 0 to a few).
    public static func hashToCurve(_ id: [UInt8]) -> (point: G1Point, increments: Int) {
        let digest = Array(SHA256.hash(data: id))
        var x = FieldElement(UInt256(bigEndian: digest)!.reduced(modulo: Curve.p))
        var increments = 0
        while true {
            let rightHandSide = x.squared * x + Curve.b
            if var y = rightHandSide.squareRoot {
                if y.value.isOdd { y = -y }
                return (G1Point(x: x, y: y, z: .one), increments)
            }
            x = x + .one
            increments += 1
        }
    }
}

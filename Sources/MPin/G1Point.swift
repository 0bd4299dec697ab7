/// A point of G1 on BN254CX in Jacobian coordinates (x = X/Z², y = Y/Z³); Z = 0 is the point at
/// infinity. The wire form is `04‖x‖y`, 65 bytes, hex on the wire.
public struct G1Point: Sendable {
    var x: FieldElement
    var y: FieldElement
    var z: FieldElement

    public static let infinity = G1Point(x: .one, y: .one, z: .zero)

    init(x: FieldElement, y: FieldElement, z: FieldElement) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The affine point (x, y); nil when it is not on the curve.
    init?(affineX: FieldElement, affineY: FieldElement) {
        guard affineY.squared == affineX.squared * affineX + Curve.b else { return nil }
        self.init(x: affineX, y: affineY, z: .one)
    }

    public var isInfinity: Bool { z.isZero }

    /// The affine coordinates; nil for the point at infinity.
    var affine: (x: FieldElement, y: FieldElement)? {
        guard !isInfinity else { return nil }
        let zInverse = z.inverse
        let zInverse2 = zInverse.squared
        return (x * zInverse2, y * zInverse2 * zInverse)
    }

    public var doubled: G1Point {
        guard !isInfinity else { return self }
        // dbl-2009-l (a = 0).
        let a = x.squared
        let b = y.squared
        let c = b.squared
        let d = ((x + b).squared - a - c).doubled
        let e = a.doubled + a
        let f = e.squared
        let x3 = f - d.doubled
        let eightC = c.doubled.doubled.doubled
        let y3 = e * (d - x3) - eightC
        let z3 = (y * z).doubled
        return G1Point(x: x3, y: y3, z: z3)
    }

    public static func + (lhs: G1Point, rhs: G1Point) -> G1Point {
        if lhs.isInfinity { return rhs }
        if rhs.isInfinity { return lhs }
        // add-2007-bl.
        let z1z1 = lhs.z.squared
        let z2z2 = rhs.z.squared
        let u1 = lhs.x * z2z2
        let u2 = rhs.x * z1z1
        let s1 = lhs.y * rhs.z * z2z2
        let s2 = rhs.y * lhs.z * z1z1
        let h = u2 - u1
        let rr = (s2 - s1).doubled
        if h.isZero {
            return rr.isZero ? lhs.doubled : .infinity
        }
        let i = h.doubled.squared
        let j = h * i
        let v = u1 * i
        let x3 = rr.squared - j - v.doubled
        let y3 = rr * (v - x3) - (s1 * j).doubled
        let z3 = ((lhs.z + rhs.z).squared - z1z1 - z2z2) * h
        return G1Point(x: x3, y: y3, z: z3)
    }

    public static prefix func - (point: G1Point) -> G1Point {
        G1Point(x: point.x, y: -point.y, z: point.z)
    }

    public static func - (lhs: G1Point, rhs: G1Point) -> G1Point {
        lhs + -rhs
    }

    /// scalar·point, with a 4-bit fixed window over all 256 bits of the scalar.
    public static func * (scalar: Scalar, point: G1Point) -> G1Point {
        var table = [G1Point](repeating: .infinity, count: 16)
        for index in 1..<16 {
            table[index] = table[index - 1] + point
        }
        var result = G1Point.infinity
        for window in stride(from: 63, through: 0, by: -1) {
            result = result.doubled.doubled.doubled.doubled
            let limb = scalar.value.limbs[window / 16]
            let digit = Int((limb >> UInt64(4 * (window % 16))) & 0xF)
            if digit != 0 { result = result + table[digit] }
        }
        return result
    }
}

extension G1Point: Equatable {
    /// Projective equality: X1·Z2² = X2·Z1² and Y1·Z2³ = Y2·Z1³.
    public static func == (lhs: G1Point, rhs: G1Point) -> Bool {
        if lhs.isInfinity || rhs.isInfinity { return lhs.isInfinity && rhs.isInfinity }
        let z1z1 = lhs.z.squared
        let z2z2 = rhs.z.squared
        return lhs.x * z2z2 == rhs.x * z1z1 && lhs.y * rhs.z * z2z2 == rhs.y * lhs.z * z1z1
    }
}

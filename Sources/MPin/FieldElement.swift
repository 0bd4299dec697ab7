/// An element of the base field F_p of BN254CX, kept in Montgomery form (a·2²⁵⁶ mod p) and
/// always fully reduced, so equal elements have equal limbs.
///
/// Arithmetic is variable-time (branches on carries and on the values in `inverse` and
/// `squareRoot`); see the module's note on side channels.
public struct FieldElement: Equatable, Sendable {
    var montgomery: UInt256

    static let zero = FieldElement(montgomery: .zero)
    static let one = FieldElement(UInt256.one)

    private init(montgomery: UInt256) {
        self.montgomery = montgomery
    }

    /// The element for an integer below p.
    init(_ value: UInt256) {
        montgomery = FieldElement.multiply(value, Curve.montgomeryRSquared)
    }

    /// The element for a small integer.
    init(_ small: UInt64) {
        self.init(UInt256(limbs: [small, 0, 0, 0]))
    }

    /// The canonical integer below p.
    var value: UInt256 { FieldElement.multiply(montgomery, .one) }

    var isZero: Bool { montgomery.isZero }

    static func + (lhs: FieldElement, rhs: FieldElement) -> FieldElement {
        // p < 2²⁵⁴, so the sum of two reduced values never overflows 256 bits.
        let (sum, _) = lhs.montgomery.addingReportingOverflow(rhs.montgomery)
        return FieldElement(montgomery: sum.reduced(modulo: Curve.p))
    }

    static func - (lhs: FieldElement, rhs: FieldElement) -> FieldElement {
        let (difference, borrowed) = lhs.montgomery.subtractingReportingOverflow(rhs.montgomery)
        guard borrowed else { return FieldElement(montgomery: difference) }
        return FieldElement(montgomery: difference.addingReportingOverflow(Curve.p).0)
    }

    static prefix func - (element: FieldElement) -> FieldElement {
        .zero - element
    }

    static func * (lhs: FieldElement, rhs: FieldElement) -> FieldElement {
        FieldElement(montgomery: multiply(lhs.montgomery, rhs.montgomery))
    }

    var squared: FieldElement { self * self }

    var doubled: FieldElement { self + self }

    /// self^exponent by square-and-multiply from the top bit.
    func power(_ exponent: UInt256) -> FieldElement {
        var result = FieldElement.one
        for index in stride(from: 255, through: 0, by: -1) {
            result = result.squared
            if exponent.bit(index) { result = result * self }
        }
        return result
    }

    /// The multiplicative inverse (Fermat: a^(p−2)); zero for zero.
    var inverse: FieldElement { power(Curve.pMinus2) }

    /// A square root when one exists. p ≡ 3 (mod 4), so a^((p+1)/4) is a root of every square.
    var squareRoot: FieldElement? {
        let candidate = power(Curve.pPlus1Over4)
        return candidate.squared == self ? candidate : nil
    }

    mutating func wipe() {
        montgomery.wipe()
    }

    /// Montgomery product a·b·2⁻²⁵⁶ mod p (CIOS, four limbs).
    static func multiply(_ a: UInt256, _ b: UInt256) -> UInt256 {
        let modulus = Curve.p.limbs
        var t: InlineArray<6, UInt64> = [0, 0, 0, 0, 0, 0]
        for i in 0..<4 {
            var carry: UInt64 = 0
            for j in 0..<4 {
                (t[j], carry) = multiplyAdd(t[j], a.limbs[j], b.limbs[i], carry)
            }
            let (sum, overflow) = t[4].addingReportingOverflow(carry)
            t[4] = sum
            t[5] = overflow ? 1 : 0

            let m = t[0] &* Curve.montgomeryInverse
            (_, carry) = multiplyAdd(t[0], m, modulus[0], 0)
            for j in 1..<4 {
                (t[j - 1], carry) = multiplyAdd(t[j], m, modulus[j], carry)
            }
            let (top, overflowTop) = t[4].addingReportingOverflow(carry)
            t[3] = top
            t[4] = t[5] &+ (overflowTop ? 1 : 0)
        }
        var result = UInt256(limbs: [t[0], t[1], t[2], t[3]])
        if t[4] != 0 || !(result < Curve.p) {
            result = result.subtractingReportingOverflow(Curve.p).0
        }
        return result
    }
}

/// acc + a·b + carry as (low, high) limbs; never overflows 128 bits.
@inline(__always)
func multiplyAdd(_ acc: UInt64, _ a: UInt64, _ b: UInt64, _ carry: UInt64) -> (UInt64, UInt64) {
    let (high, low) = a.multipliedFullWidth(by: b)
    let (sum1, overflow1) = low.addingReportingOverflow(acc)
    let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
    return (sum2, high &+ (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0))
}

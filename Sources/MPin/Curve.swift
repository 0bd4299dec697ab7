/// The parameters of BN254CX (milagro-crypto-c's `BN254CX`): y² = x³ + 2 over F_p with
/// p = 36u⁴+36u³+24u²+6u+1 and the group order r = 36u⁴+36u³+18u²+6u+1, u = −0x4000000003C012B1.
/// G1 has cofactor 1, so every point on the curve is in the group of order r.
enum Curve {
    static let p = UInt256(hex: "2400000008702a0db0bddf647a6366d3243fd6ee18093ee1be6623ef5c1b55b3")!
    static let r = UInt256(hex: "2400000008702a0db0bddf647a6366d2c43fd6ee0cc906cebe11c0a636eb1f6d")!

    /// b of y² = x³ + b.
    static let b = FieldElement(2)

    /// −p⁻¹ mod 2⁶⁴, for Montgomery reduction (Newton's iteration doubles the correct bits).
    static let montgomeryInverse: UInt64 = {
        var inverse: UInt64 = 1
        for _ in 0..<6 { inverse = inverse &* (2 &- p.limbs[0] &* inverse) }
        return 0 &- inverse
    }()

    /// 2⁵¹² mod p, which turns an integer into Montgomery form.
    static let montgomeryRSquared: UInt256 = {
        var value = UInt256.one
        for _ in 0..<512 {
            value = value.addingReportingOverflow(value).0.reduced(modulo: p)
        }
        return value
    }()

    static let pMinus2 = p.subtractingReportingOverflow(UInt256(limbs: [2, 0, 0, 0])).0

    static let pPlus1Over4: UInt256 = {
        let pPlus1 = p.addingReportingOverflow(.one).0
        var shifted = pPlus1
        for index in 0..<4 {
            let next = index < 3 ? pPlus1.limbs[index + 1] : 0
            shifted.limbs[index] = pPlus1.limbs[index] >> 2 | next << 62
        }
        return shifted
    }()
}

import HexCoding
import TestSupport
import Testing

@testable import MPin

/// Field and group laws on seeded random inputs: each seed is a property run.
@Suite struct CurveLawTests {
    static let seeds: [UInt64] = Array(1...12)

    static func element(_ generator: inout SeededGenerator) -> FieldElement {
        var value = UInt256(limbs: [generator.next(), generator.next(), generator.next(), generator.next()])
        value.limbs[3] &= (1 << 61) - 1
        return FieldElement(value.reduced(modulo: Curve.p))
    }

    static func point(_ generator: inout SeededGenerator) -> G1Point {
        let base = G1Point.hashToCurve(Array("base point".utf8)).point
        return Scalar.random(using: &generator) * base
    }

    @Test(arguments: seeds)
    func fieldArithmeticFollowsTheFieldLaws(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let a = Self.element(&generator), b = Self.element(&generator), c = Self.element(&generator)
        #expect((a + b) + c == a + (b + c))
        #expect((a * b) * c == a * (b * c))
        #expect(a * (b + c) == a * b + a * c)
        #expect(a - a == .zero)
        #expect(a + -a == .zero)
        #expect(FieldElement(a.value) == a)
        if !a.isZero { #expect(a * a.inverse == .one) }
        let square = a.squared
        let root = square.squareRoot
        #expect(root == a || root == -a)
    }

    @Test func theMontgomeryFormRoundTripsSmallAndBoundaryValues() {
        let pMinus1 = Curve.p.subtractingReportingOverflow(.one).0
        #expect(FieldElement(pMinus1) + .one == .zero)
        #expect(FieldElement(7).value == UInt256(limbs: [7, 0, 0, 0]))
        #expect(FieldElement(pMinus1).value == pMinus1)
        #expect(FieldElement(2).inverse * FieldElement(2) == .one)
    }

    @Test(arguments: seeds)
    func theGroupIsAbelianAndAssociative(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let p = Self.point(&generator), q = Self.point(&generator), r = Self.point(&generator)
        #expect(p + q == q + p)
        #expect((p + q) + r == p + (q + r))
        #expect(p + p == p.doubled)
        #expect(p - p == .infinity)
        #expect(p + .infinity == p)
    }

    @Test(arguments: seeds)
    func scalarMultiplicationDistributesAndHasOrderR(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let p = Self.point(&generator)
        let a = Scalar.random(using: &generator), b = Scalar.random(using: &generator)
        #expect((a + b) * p == a * p + b * p)
        #expect(a * (b * p) == b * (a * p))
        #expect(Scalar(2) * p == p.doubled)
        #expect(Scalar(0) * p == .infinity)
        // r·P = O: r reduces to 0, so check (r − 1)·P = −P instead.
        let rMinus1 = Scalar(reducing: Curve.r.subtractingReportingOverflow(.one).0)
        #expect(rMinus1 * p == -p)
    }

    @Test(arguments: seeds)
    func encodingRoundTrips(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let p = Self.point(&generator)
        let hex = try #require(p.hex)
        #expect(hex.count == 130)
        #expect(try G1Point(hex: hex) == p)
        #expect(try G1Point(hex: hex.uppercased()) == p)
    }

    @Test(arguments: [
        "",
        "04",
        "zz" + String(repeating: "0", count: 128),
        "03" + String(repeating: "0", count: 128),
        "04" + String(repeating: "0", count: 127),
        "04" + String(repeating: "0", count: 128) + "00",
        // x = 1, y = 1 is not on the curve.
        "04" + String(repeating: "0", count: 63) + "1" + String(repeating: "0", count: 63) + "1",
        // x = p (not below p).
        "04" + "2400000008702a0db0bddf647a6366d3243fd6ee18093ee1be6623ef5c1b55b3" + String(repeating: "0", count: 64),
    ])
    func pointsOffTheCurveOrNotHexAreRefused(hex: String) {
        #expect(throws: MPinCryptoError.invalidPoint) { try G1Point(hex: hex) }
    }

    @Test func aPointWithItsYNegatedModuloPIsStillOnTheCurveButOneMovedIsNot() throws {
        let p = G1Point.hashToCurve(Array("id".utf8)).point
        let (x, y) = try #require(p.affine)
        #expect(G1Point(affineX: x, affineY: -y) != nil)
        #expect(G1Point(affineX: x, affineY: y + .one) == nil)
    }

    @Test(arguments: [
        ("1234", UInt64(9442)),
        ("0000", PIN.map(Array("0000".utf8))),
    ])
    func mappedPINsStayWithin14Bits(pin: String, mapped: UInt64) throws {
        #expect(try PIN(digits: Array(pin.utf8)).mapped == mapped)
        #expect(mapped < 1 << 14)
    }

    /// A PIN whose Java hash is negative keeps C's negative remainder before the 14-bit mask.
    @Test func aNegativeHashUsesTheTwosComplementOfTheNegativeRemainder() throws {
        // "123456789": 31-hash wraps negative.
        var hash: Int32 = 0
        for byte in "123456789".utf8 { hash = 31 &* hash &+ Int32(byte) }
        #expect(hash < 0)
        let expected = UInt64(UInt32(bitPattern: hash % 10_000) & 0x3FFF)
        #expect(try PIN(digits: Array("123456789".utf8)).mapped == expected)
        #expect(expected != UInt64(abs(hash) % 10_000))
    }

    @Test(arguments: ["", "123", "12a4", "1234567890123", "１２３４"])
    func pinsOtherThanFourToTwelveASCIIDigitsAreRefused(pin: String) {
        #expect(throws: MPinCryptoError.invalidPIN) { try PIN(digits: Array(pin.utf8)) }
    }

    @Test func aLoginWithTheRightPINSatisfiesTheServersEquationAndAWrongOneDoesNot() throws {
        // A server that knows the master secret s checks V + s·(U + y·H(ID)) = O.
        let s = Scalar.random()
        let identity = try MPinIdentity(mpinIdHex: Hex.encode(Array("{\"userID\":\"a@example.com\"}".utf8)))
        let secret = s * identity.hashed
        let pin = try PIN(digits: Array("2468".utf8))
        let token = try MPinClientCrypto.token(clientSecret: secret, pin: pin, identity: identity)
        let (u, x) = MPinClientCrypto.pass1(identity: identity)
        let y = Scalar.random()
        let v = MPinClientCrypto.pass2(x: x, y: y, token: token, pin: pin, identity: identity)
        #expect(v + s * (u + y * identity.hashed) == .infinity)
        let wrong = try PIN(digits: Array("2469".utf8))
        let wrongV = MPinClientCrypto.pass2(x: x, y: y, token: token, pin: wrong, identity: identity)
        #expect(wrongV + s * (u + y * identity.hashed) != .infinity)
    }
}

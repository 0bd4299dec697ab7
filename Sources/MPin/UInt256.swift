import HexCoding

/// A 256-bit unsigned integer in four 64-bit limbs, least significant first: the numbers of
/// the curve (coordinates below p, scalars below r) and their 32-byte big-endian encodings.
struct UInt256: Equatable, Sendable {
    var limbs: InlineArray<4, UInt64>

    static let zero = UInt256(limbs: [0, 0, 0, 0])
    static let one = UInt256(limbs: [1, 0, 0, 0])

    init(limbs: InlineArray<4, UInt64>) {
        self.limbs = limbs
    }

    /// Reads 32 big-endian bytes.
    init?(bigEndian bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        var limbs: InlineArray<4, UInt64> = [0, 0, 0, 0]
        for (index, byte) in bytes.enumerated() {
            let limb = 3 - index / 8
            limbs[limb] = limbs[limb] << 8 | UInt64(byte)
        }
        self.limbs = limbs
    }

    /// Reads a big-endian hexadecimal number of at most 64 digits.
    init?(hex: String) {
        guard !hex.isEmpty, hex.utf8.count <= 64 else { return nil }
        var limbs: InlineArray<4, UInt64> = [0, 0, 0, 0]
        for (index, character) in hex.utf8.reversed().enumerated() {
            guard let digit = Hex.value(of: character) else { return nil }
            limbs[index / 16] |= UInt64(digit) << (4 * UInt64(index % 16))
        }
        self.limbs = limbs
    }

    var bigEndianBytes: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in 0..<32 {
            bytes[index] = UInt8(truncatingIfNeeded: limbs[3 - index / 8] >> (8 * UInt64(7 - index % 8)))
        }
        return bytes
    }

    var isZero: Bool { limbs[0] | limbs[1] | limbs[2] | limbs[3] == 0 }

    var isOdd: Bool { limbs[0] & 1 == 1 }

    /// The bit at `index` (0 = least significant).
    func bit(_ index: Int) -> Bool {
        (limbs[index / 64] >> UInt64(index % 64)) & 1 == 1
    }

    static func < (lhs: UInt256, rhs: UInt256) -> Bool {
        for index in stride(from: 3, through: 0, by: -1) where lhs.limbs[index] != rhs.limbs[index] {
            return lhs.limbs[index] < rhs.limbs[index]
        }
        return false
    }

    /// The sum and whether it overflowed 2²⁵⁶.
    func addingReportingOverflow(_ other: UInt256) -> (UInt256, Bool) {
        var result = self
        var carry: UInt64 = 0
        for index in 0..<4 {
            let (partial, overflow1) = limbs[index].addingReportingOverflow(other.limbs[index])
            let (sum, overflow2) = partial.addingReportingOverflow(carry)
            result.limbs[index] = sum
            carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        return (result, carry != 0)
    }

    /// The difference and whether it borrowed (self < other).
    func subtractingReportingOverflow(_ other: UInt256) -> (UInt256, Bool) {
        var result = self
        var borrow: UInt64 = 0
        for index in 0..<4 {
            let (partial, overflow1) = limbs[index].subtractingReportingOverflow(other.limbs[index])
            let (difference, overflow2) = partial.subtractingReportingOverflow(borrow)
            result.limbs[index] = difference
            borrow = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        return (result, borrow != 0)
    }

    /// The value reduced below `modulus` by subtraction: for numbers within a few multiples of
    /// it, as a 256-bit hash or scalar is for the 254-bit moduli of BN254.
    func reduced(modulo modulus: UInt256) -> UInt256 {
        var value = self
        while !(value < modulus) {
            value = value.subtractingReportingOverflow(modulus).0
        }
        return value
    }

    static func == (lhs: UInt256, rhs: UInt256) -> Bool {
        lhs.limbs[0] == rhs.limbs[0] && lhs.limbs[1] == rhs.limbs[1]
            && lhs.limbs[2] == rhs.limbs[2] && lhs.limbs[3] == rhs.limbs[3]
    }

    /// Overwrites the limbs with zeros (for secret values).
    mutating func wipe() {
        limbs = [0, 0, 0, 0]
    }
}

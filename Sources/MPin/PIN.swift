/// A PIN as the M-Pin core uses it: 4 to 12 ASCII digits, mapped to a small integer that
/// multiplies H(ID). The digits live in this value only; `wipe()` clears them.
public struct PIN: Sendable {
    private var digits: [UInt8]

    public static let lengths = 4...12

    /// - Throws: `MPinCryptoError.invalidPIN` for anything but 4 to 12 ASCII digits.
    public init(digits: [UInt8]) throws(MPinCryptoError) {
        guard PIN.lengths.contains(digits.count),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { throw .invalidPIN }
        self.digits = digits
    }

    /// The mapped PIN of milagro's MFA core: the Java `String.hashCode` of the PIN text (32-bit,
    /// wrapping), then C's `% 10000` (MAXPIN; truncation toward zero keeps a negative sign), then
    /// the low 14 bits (PBLEN) of the two's-complement result. "1234" → 1509442 → 9442.
    public var mapped: UInt64 {
        PIN.map(digits)
    }

    static func map(_ text: [UInt8]) -> UInt64 {
        var hash: Int32 = 0
        for byte in text {
            hash = 31 &* hash &+ Int32(byte)
        }
        let remainder = hash % 10_000
        return UInt64(UInt32(bitPattern: remainder) & 0x3FFF)
    }

    var scalar: Scalar { Scalar(mapped) }

    /// Overwrites the digits. Copies Swift made earlier (a `String` the PIN came from, a copy of
    /// this value) are not reached; callers keep the PIN in `[UInt8]` and wipe that too.
    public mutating func wipe() {
        for index in digits.indices { digits[index] = 0 }
        digits = []
    }
}

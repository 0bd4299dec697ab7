/// An integer modulo the group order r: a secret (the pass-1 random x, a master-secret share)
/// or a public challenge (pass 1's y).
public struct Scalar: Equatable, Sendable {
    var value: UInt256

    init(reducing value: UInt256) {
        self.value = value.reduced(modulo: Curve.r)
    }

    /// Reads 32 big-endian bytes, reduced modulo r (as the M-Pin core reduces pass 1's `y`).
    public init?(bigEndian bytes: some Collection<UInt8>) {
        guard let value = UInt256(bigEndian: bytes) else { return nil }
        self.init(reducing: value)
    }

    /// Reads up to 64 hex digits, reduced modulo r; nil for anything else.
    public init?(hex: String) {
        guard let value = UInt256(hex: hex) else { return nil }
        self.init(reducing: value)
    }

    /// A small integer, like a PIN's mapped value.
    public init(_ small: UInt64) {
        self.init(reducing: UInt256(limbs: [small, 0, 0, 0]))
    }

    /// A uniformly random non-zero scalar (rejection sampling on 254 bits).
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> Scalar {
        while true {
            var candidate = UInt256(limbs: [generator.next(), generator.next(), generator.next(), generator.next()])
            candidate.limbs[3] &= (1 << 62) - 1
            if candidate < Curve.r, !candidate.isZero { return Scalar(unchecked: candidate) }
        }
    }

    public static func random() -> Scalar {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    private init(unchecked value: UInt256) {
        self.value = value
    }

    public var bigEndianBytes: [UInt8] { value.bigEndianBytes }

    public var isZero: Bool { value.isZero }

    public static func + (lhs: Scalar, rhs: Scalar) -> Scalar {
        // r < 2²⁵⁴: the sum never overflows.
        Scalar(reducing: lhs.value.addingReportingOverflow(rhs.value).0)
    }

    public static prefix func - (scalar: Scalar) -> Scalar {
        scalar.isZero ? scalar : Scalar(unchecked: Curve.r.subtractingReportingOverflow(scalar.value).0)
    }

    public static func - (lhs: Scalar, rhs: Scalar) -> Scalar {
        lhs + -rhs
    }

    /// Overwrites the value with zero. Swift may have copied it before (values are copied
    /// freely), so this clears this copy only.
    public mutating func wipe() {
        value.wipe()
    }
}

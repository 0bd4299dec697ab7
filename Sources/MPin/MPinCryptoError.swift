/// What the M-Pin arithmetic refuses.
public enum MPinCryptoError: Error, Equatable, Sendable {
    /// Not `04‖x‖y` hex of a point on BN254CX.
    case invalidPoint
    /// Not the hex of a 256-bit number.
    case invalidScalar
    /// A PIN that is not 4 to 12 ASCII digits.
    case invalidPIN
    /// A result at infinity, which no honest exchange produces (e.g. shares that cancel out).
    case degenerate
}

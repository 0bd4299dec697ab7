import Foundation

/// Byte helpers shared by the PowerAuth computations. PowerAuth specifies its
/// operations on byte arrays; these are the few shapes it uses everywhere.
public enum Bytes {
    /// XOR of the two halves of a 32-byte value (`convert32Bto16B`).
    public static func fold(_ bytes32: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(bytes32)
        precondition(bytes.count == 32, "fold needs 32 bytes")
        return (0..<16).map { bytes[$0] ^ bytes[$0 + 16] }
    }

    /// Big-endian encoding of a 32-bit length or value.
    public static func bigEndian(_ value: UInt32) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }

    /// Big-endian encoding of a 64-bit value.
    public static func bigEndian(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }

    /// Each part prefixed with its 4-byte big-endian length; an absent part is a zero length.
    public static func joinedWithSizes(_ parts: [[UInt8]?]) -> [UInt8] {
        var result: [UInt8] = []
        for part in parts {
            let part = part ?? []
            result += bigEndian(UInt32(part.count))
            result += part
        }
        return result
    }

    /// UTF-8 bytes of a string.
    public static func utf8(_ string: String) -> [UInt8] { Array(string.utf8) }

    public static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Decodes standard Base64; nil when the text is not Base64.
    public static func base64(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text).map(Array.init)
    }

    public static func base64String(_ bytes: some Collection<UInt8>) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Comparison whose time does not depend on where the inputs differ.
    public static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    /// A big-endian unsigned integer in at most `count` bytes, left-padded with zeros;
    /// leading zero bytes beyond that (a signed big-integer encoding) are dropped.
    public static func unsignedFixedWidth(_ bytes: [UInt8], count: Int) -> [UInt8]? {
        var trimmed = bytes[...]
        while trimmed.count > count, trimmed.first == 0 { trimmed = trimmed.dropFirst() }
        guard trimmed.count <= count else { return nil }
        return [UInt8](repeating: 0, count: count - trimmed.count) + trimmed
    }
}

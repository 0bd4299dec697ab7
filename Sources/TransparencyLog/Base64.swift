import Foundation

/// Standard base64 (RFC 4648 §4) read strictly: only the one text that encodes the bytes,
/// so that what a parser accepts writes back byte for byte (no other padding bits, no line
/// breaks, no missing padding).
public enum Base64 {
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard let data = Data(base64Encoded: String(text)), data.base64EncodedString() == text else { return nil }
        return Array(data)
    }
}

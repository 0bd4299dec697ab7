/// A parsed activation deeplink: what the wallet asked for, decoded and checked.
public struct Deeplink: Sendable, Equatable {
    /// The configured format it matched.
    public var format: DeeplinkFormat
    /// The pass serial number (1–128 bytes of UTF-8, no control characters).
    public var serialNumber: String
    /// Narrows the wallet lookup when present.
    public var passTypeIdentifier: String?
    /// `verify` when the deeplink carried `action=verify`.
    public var action: String?

    /// The canonical deeplink for these values: the format, then the parameters in a
    /// fixed order, percent-encoding everything but unreserved characters.
    public var canonicalText: String {
        var text = format.description + "?serialNumber=" + Self.percentEncoded(serialNumber)
        if let passTypeIdentifier { text += "&passTypeIdentifier=" + Self.percentEncoded(passTypeIdentifier) }
        if let action { text += "&action=" + Self.percentEncoded(action) }
        return text
    }

    static func percentEncoded(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in value.utf8 {
            if DeeplinkParser.isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

import HexCoding
import TextFormats
import WalletModel

/// Parses activation deeplinks strictly (RFC 3986) against the configured formats.
///
/// Rules: at most 2048 bytes; only URI characters (anything else must be
/// percent-encoded); no fragment; scheme and host equal to a configured format ignoring
/// case, path equal (empty equals `/`); query names are case-sensitive and, like values,
/// percent-decoded, with `+` a literal plus; `serialNumber` exactly once, non-empty,
/// valid UTF-8, no control or bidirectional formatting characters (``SafeText``), at
/// most 128 bytes; optional `passTypeIdentifier` (1–255 bytes) and `action` (must be `verify`); a repeated known parameter is rejected
/// and unknown parameters are ignored.
public struct DeeplinkParser: Sendable {
    public static let maximumLength = 2048
    public static let maximumSerialBytes = 128
    public static let maximumPassTypeBytes = 255

    public let formats: [DeeplinkFormat]

    public init(formats: [DeeplinkFormat]) {
        self.formats = formats
    }

    /// The error of a deeplink over ``maximumLength`` bytes.
    public static let tooLong = DeeplinkError(.tooLong, "the deeplink is longer than \(maximumLength) bytes")

    /// The error of a deeplink holding `byte`, which a URI cannot (a non-ASCII byte
    /// included, so also a line that is not UTF-8).
    public static func invalidCharacter(_ byte: UInt8) -> DeeplinkError {
        let what =
            byte < 0x20 || byte == 0x7F ? "a control character" : byte >= 0x80 ? "a non-ASCII character" : "a character"
        return DeeplinkError(.invalidCharacter, "the deeplink contains \(what) that must be percent-encoded")
    }

    public func parse(_ text: String) throws(DeeplinkError) -> Deeplink {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maximumLength else { throw Self.tooLong }
        if let bad = bytes.first(where: { !Self.isURICharacter($0) }) { throw Self.invalidCharacter(bad) }
        if bytes.contains(UInt8(ascii: "#")) {
            throw DeeplinkError(.fragment, "the deeplink has a fragment (#…), which activation deeplinks never carry")
        }
        guard let parts = URIParts(bytes) else {
            throw DeeplinkError(.malformed, "the deeplink is not of the form scheme://host/path?query")
        }
        guard
            let format = formats.first(where: { $0.matches(scheme: parts.scheme, host: parts.host, path: parts.path) })
        else {
            let allowed = formats.map(\.description).joined(separator: ", ")
            throw DeeplinkError(
                .formatMismatch, "the deeplink's scheme, host or path does not match a configured format (\(allowed))")
        }
        var serial: [UInt8]?
        var passType: [UInt8]?
        var action: [UInt8]?
        for parameter in (parts.query ?? []).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = parameter.firstIndex(of: UInt8(ascii: "="))
            let name = try Self.percentDecoded(parameter[..<(equals ?? parameter.endIndex)])
            let value = try Self.percentDecoded(equals.map { parameter[($0 + 1)...] } ?? [])
            switch String(decoding: name, as: UTF8.self) {
            case "serialNumber": try Self.store(value, in: &serial, name: "serialNumber")
            case "passTypeIdentifier": try Self.store(value, in: &passType, name: "passTypeIdentifier")
            case "action": try Self.store(value, in: &action, name: "action")
            default: continue
            }
        }
        return Deeplink(
            format: format,
            serialNumber: try Self.serialNumber(serial),
            passTypeIdentifier: try passType.map(Self.passType),
            action: try action.map(Self.action)
        )
    }

    private static func store(_ value: [UInt8], in slot: inout [UInt8]?, name: String) throws(DeeplinkError) {
        guard slot == nil else {
            throw DeeplinkError(.duplicateParameter, "the parameter \(name) occurs more than once")
        }
        slot = value
    }

    private static func serialNumber(_ bytes: [UInt8]?) throws(DeeplinkError) -> String {
        guard let bytes else { throw DeeplinkError(.missingSerialNumber, "the deeplink has no serialNumber parameter") }
        guard !bytes.isEmpty else { throw DeeplinkError(.emptySerialNumber, "serialNumber is empty") }
        let text = try utf8(bytes, name: "serialNumber")
        guard bytes.count <= maximumSerialBytes else {
            throw DeeplinkError(.serialTooLong, "serialNumber is longer than \(maximumSerialBytes) bytes")
        }
        return text
    }

    private static func passType(_ bytes: [UInt8]) throws(DeeplinkError) -> String {
        guard !bytes.isEmpty, bytes.count <= maximumPassTypeBytes else {
            throw DeeplinkError(.invalidPassType, "passTypeIdentifier must be 1 to \(maximumPassTypeBytes) bytes")
        }
        return try utf8(bytes, name: "passTypeIdentifier")
    }

    private static func action(_ bytes: [UInt8]) throws(DeeplinkError) -> String {
        guard bytes == Array("verify".utf8) else {
            throw DeeplinkError(.invalidAction, "action must be verify when present")
        }
        return "verify"
    }

    private static func utf8(_ bytes: [UInt8], name: String) throws(DeeplinkError) -> String {
        guard let text = String(checkedUTF8: bytes) else {
            throw DeeplinkError(.invalidUTF8, "\(name) is not valid UTF-8 after percent-decoding")
        }
        guard !SafeText.containsUnsafe(text) else {
            throw DeeplinkError(.controlCharacter, "\(name) contains a control or bidirectional formatting character")
        }
        return text
    }

    /// Percent-decoding; `+` stays a plus.
    static func percentDecoded(_ bytes: ArraySlice<UInt8>) throws(DeeplinkError) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex,
                    let high = Hex.value(of: bytes[index + 1]), let low = Hex.value(of: bytes[index + 2])
                else {
                    throw DeeplinkError(
                        .invalidPercentEncoding, "the query has a % not followed by two hexadecimal digits")
                }
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(byte)
                index += 1
            }
        }
        return result
    }

    /// RFC 3986 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~".
    static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    /// Unreserved, reserved (gen-delims and sub-delims) and `%`.
    private static func isURICharacter(_ byte: UInt8) -> Bool {
        uriCharacters[Int(byte)]
    }

    private static let uriCharacters: [Bool] = (0...255).map { byte in
        isUnreserved(UInt8(byte)) || Array(":/?#[]@!$&'()*+,;=%".utf8).contains(UInt8(byte))
    }
}

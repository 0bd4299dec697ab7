/// A launch URL configured in MDES: scheme, host and optional path. A deeplink matches
/// when its scheme and host are equal ignoring case and its path is equal, where an
/// empty path equals `/`.
public struct DeeplinkFormat: Sendable, Equatable, CustomStringConvertible {
    /// Lower-cased scheme, such as `mybank`.
    public let scheme: String
    /// Lower-cased host (with a port, if any), such as `activate`.
    public let host: String
    /// The path as configured, possibly empty.
    public let path: String

    /// Parses `scheme://host[/path]`; nil when it is not of that form.
    public init?(_ text: String) {
        guard let parts = URIParts(Array(text.utf8)), parts.query == nil, !parts.host.isEmpty else { return nil }
        scheme = parts.scheme.lowercased()
        host = parts.host.lowercased()
        path = parts.path
    }

    public var description: String { "\(scheme)://\(host)\(path)" }

    func matches(scheme: String, host: String, path: String) -> Bool {
        scheme.lowercased() == self.scheme && host.lowercased() == self.host
            && Self.normalized(path) == Self.normalized(self.path)
    }

    private static func normalized(_ path: String) -> String { path.isEmpty ? "/" : path }
}

/// The pieces of `scheme://authority/path?query` (no fragment), split without decoding.
struct URIParts {
    var scheme: String
    var host: String
    var path: String
    var query: ArraySlice<UInt8>?

    init?(_ bytes: [UInt8]) {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            Self.isSchemeStart(bytes[0]), bytes[1..<colon].allSatisfy(Self.isSchemeCharacter)
        else { return nil }
        let rest = bytes[(colon + 1)...]
        guard rest.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) else { return nil }
        let authorityStart = rest.startIndex + 2
        let authorityEnd =
            bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? bytes.endIndex
        let questionMark = bytes[authorityEnd...].firstIndex(of: UInt8(ascii: "?"))
        scheme = String(decoding: bytes[..<colon], as: UTF8.self)
        host = String(decoding: bytes[authorityStart..<authorityEnd], as: UTF8.self)
        path = String(decoding: bytes[authorityEnd..<(questionMark ?? bytes.endIndex)], as: UTF8.self)
        query = questionMark.map { bytes[($0 + 1)...] }
    }

    private static func isSchemeStart(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isSchemeCharacter(_ byte: UInt8) -> Bool {
        isSchemeStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}

/// Characters that change how a terminal shows text instead of being shown: C0 and C1
/// controls and DEL, the bidirectional formatting characters (U+202A–U+202E, U+2066–U+2069,
/// U+200E, U+200F, U+061C), the line and paragraph separators, and the other invisible
/// format characters (U+200B, U+2060, U+FEFF, …). The zero-width non-joiner and joiner and
/// the emoji tag characters stay allowed: scripts and emoji sequences need them.
///
/// Labels and serial numbers with such characters are refused at input; values that reach
/// the output anyway (written by another tool, or before this rule) are shown escaped.
public enum SafeText {
    /// The longest label (a device label, a device or activation name), in characters.
    public static let maxLabelCharacters = 64
    public static let labelRule =
        "1 to \(maxLabelCharacters) characters without control or bidirectional formatting characters"

    /// Whether `text` is a label: see ``labelRule``.
    /// The first `count` Unicode scalars of `text`: a cut that bounds what is kept or shown
    /// (a `Character` may hold any number of scalars).
    public static func prefix(_ text: String, scalars count: Int) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(count)))
    }

    public static func isLabel(_ text: String) -> Bool {
        !text.isEmpty && text.count <= maxLabelCharacters && !containsUnsafe(text)
    }

    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        case .format: !(scalar == "\u{200C}" || scalar == "\u{200D}" || (0xE0020...0xE007F).contains(scalar.value))
        default: false
        }
    }

    public static func containsUnsafe(_ text: String) -> Bool {
        if isPrintableASCII(text) { return false }
        return text.unicodeScalars.contains(where: isUnsafe)
    }

    /// `text` with every unsafe character written as `\u{202E}`.
    public static func escaped(_ text: String) -> String {
        guard containsUnsafe(text) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The common case, checked without decoding: every byte a printable ASCII character.
    public static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}

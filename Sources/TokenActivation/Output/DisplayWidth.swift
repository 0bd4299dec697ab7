/// How many terminal columns text takes: 2 for East Asian wide and fullwidth characters and
/// emoji, 0 for a combining mark or format character on its own, 1 otherwise; a grapheme
/// cluster (a letter with its accents, an emoji sequence) counts once.
public enum DisplayWidth {
    public static func of(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.count }
        return text.reduce(0) { $0 + of($1) }
    }

    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.properties.isEmojiPresentation || $0 == "\u{FE0F}" }) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: return isWide(first) ? 2 : 1
        }
    }

    /// The East Asian Wide (W) and Fullwidth (F) blocks of Unicode 16; emoji are found by
    /// their Emoji_Presentation property instead.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2630...0x2637, 0x268A...0x268F, 0x2E80...0x303E,
        0x3041...0x3247, 0x3250...0x33FF, 0x3400...0x4DFF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18D08, 0x1AFF0...0x1AFFE,
        0x1B000...0x1B2FF, 0x1D300...0x1D376, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        wideRanges.contains { $0.contains(scalar.value) }
    }
}

/// Table cells padded by display width, so wide characters keep columns aligned.
public enum TableCell {
    /// `text` and spaces up to `width` columns; one space after it when it is wider.
    public static func pad(_ text: String, _ width: Int) -> String {
        let used = DisplayWidth.of(text)
        return used >= width ? text + " " : text + String(repeating: " ", count: width - used)
    }

    /// `text` cut with `…` to at most `width - 1` columns, then padded to `width`: for
    /// free-text labels, whose whole value `show` and `--json` give.
    public static func fit(_ text: String, _ width: Int) -> String {
        guard DisplayWidth.of(text) >= width else { return pad(text, width) }
        var kept = ""
        var used = 0
        for character in text {
            let next = DisplayWidth.of(character)
            if used + next > width - 2 { break }
            kept.append(character)
            used += next
        }
        return pad(kept + "…", width)
    }
}

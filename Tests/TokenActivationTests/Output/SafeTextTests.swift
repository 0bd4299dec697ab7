import Testing
import TextFormats
import TokenActivation
import WalletModel

@Suite struct SafeTextTests {
    @Test(arguments: [
        ("iPhone", "iPhone"),
        ("x\u{202E}gpj.exe", "x\\u{202E}gpj.exe"),
        ("\u{202A}\u{202B}\u{202C}\u{202D}", "\\u{202A}\\u{202B}\\u{202C}\\u{202D}"),
        ("a\u{2066}b\u{2067}c\u{2068}d\u{2069}", "a\\u{2066}b\\u{2067}c\\u{2068}d\\u{2069}"),
        ("\u{200E}\u{200F}\u{61C}", "\\u{200E}\\u{200F}\\u{61C}"),
        ("tab\there", "tab\\u{9}here"),
        ("nel\u{85}", "nel\\u{85}"),
        ("del\u{7F}", "del\\u{7F}"),
        ("zero\u{200B}width\u{FEFF}", "zero\\u{200B}width\\u{FEFF}"),
        ("line\u{2028}para\u{2029}", "line\\u{2028}para\\u{2029}"),
        ("Work iPhone 号码", "Work iPhone 号码"),
        ("مرحبا", "مرحبا"),
        ("می‌خواهم", "می‌خواهم"),
        ("👨‍👩‍👧", "👨‍👩‍👧"),
        ("🏴󠁧󠁢󠁳󠁣󠁴󠁿", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"),
        ("e\u{301}", "e\u{301}"),
    ])
    func escapesWhatATerminalWouldObey(input: String, shown: String) {
        #expect(SafeText.escaped(input) == shown)
        #expect(SafeText.containsUnsafe(input) == (input != shown))
    }

    @Test func aLabelIsOneTo64SafeCharacters() {
        #expect(SafeText.isLabel("Apple Watch (45 mm)"))
        #expect(SafeText.isLabel(String(repeating: "号", count: 64)))
        #expect(!SafeText.isLabel(String(repeating: "号", count: 65)))
        #expect(!SafeText.isLabel(""))
        #expect(!SafeText.isLabel("x\u{202E}y"))
    }
}

@Suite struct DisplayWidthTests {
    @Test(arguments: [
        ("", 0), ("iPhone", 6), ("号码", 4), ("한국", 4), ("ｱｲ", 2), ("ＡＢ", 4),
        ("e\u{301}", 1), ("é", 1), ("👍", 2), ("❤️", 2), ("👨‍👩‍👧", 2), ("🇨🇿", 2),
        ("…", 1), ("\u{301}", 0), ("x\\u{202E}y", 10), ("Work iPhone 号码手机壳", 22),
    ])
    func measuresTerminalColumns(text: String, columns: Int) {
        #expect(DisplayWidth.of(text) == columns)
    }

    @Test(arguments: [
        ("Watch", 8, "Watch   "),
        ("号码", 6, "号码  "),
        ("号码手机", 8, "号码手… "),
        ("ab号码", 5, "ab…  "),
        ("Work iPhone 号码手机壳", 16, "Work iPhone 号… "),
        ("号码手机壳", 8, "号码手… "),
        ("abcdefghij", 8, "abcdef… "),
    ])
    func fitsCellsToTheirColumns(text: String, width: Int, cell: String) {
        let fitted = TableCell.fit(text, width)
        #expect(fitted == cell)
        #expect(DisplayWidth.of(fitted) == width)
    }
}

import Testing
import TextFormats

@Suite struct MaskTests {
    @Test(arguments: [
        ("SN1234567890", "SN12…7890"),
        ("DAPL00000000001234", "DAPL…1234"),
        ("123456789", "1234…6789"),
        ("12345678", "…78"),
        ("ab", "…ab"),
        ("a", "…a"),
        ("", "…"),
        ("ÄÖÜßéèêëñ", "ÄÖÜß…èêëñ"),
    ])
    func masksFirstFourAndLastFour(value: String, masked: String) {
        #expect(Mask.identifier(value) == masked)
    }

    /// Counted in scalars: a letter with many combining marks is one `Character` but shows
    /// only four scalars of them.
    @Test func countsUnicodeScalarsNotCharacters() {
        let heavy = "A" + String(repeating: "\u{0301}", count: 20) + "BCDEFGHIJ"
        let masked = Mask.identifier(heavy)
        #expect(masked.unicodeScalars.count == 9)
        #expect(masked == "A\u{0301}\u{0301}\u{0301}…GHIJ")
    }

    @Test func revealShowsTheWholeValue() {
        #expect(Mask.identifier("SN1234567890", reveal: true) == "SN1234567890")
        #expect(Mask.identifier("SN1234567890", reveal: false) == "SN12…7890")
    }
}

@Suite struct ScalarPrefixTests {
    @Test func cutsByScalarsNotCharacters() {
        let heavy = "e" + String(repeating: "\u{0301}", count: 50)
        #expect(SafeText.prefix(heavy, scalars: 3).unicodeScalars.count == 3)
        #expect(SafeText.prefix("abc", scalars: 10) == "abc")
    }
}

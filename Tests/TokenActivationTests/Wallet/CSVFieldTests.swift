import Testing

@testable import TokenActivation

/// The CSV writer decides on bytes, as RFC 4180 and the importer do.
@Suite struct CSVFieldTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("a,b", "\"a,b\""),
        ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ("line\nbreak", "\"line\nbreak\""),
        // A quote followed by a combining mark (U+0653) is one Character in Swift; the
        // quote is still doubled. The input `wallet import` once could not read back.
        ("SN,\"\u{0653}%3\"", "\"SN,\"\"\u{0653}%3\"\"\""),
        ("\"\u{0301}", "\"\"\"\u{0301}\""),
    ])
    func quotesAndDoublesQuotesByByte(value: String, field: String) {
        #expect(Array(CSV.field(value).utf8) == Array(field.utf8))
    }

    @Test func aCommentIsCutAt256Scalars() {
        let long = "x" + String(repeating: "\u{0301}", count: 1000)
        let kept = TMPAnswer.sanitized(long)
        #expect(kept?.unicodeScalars.count == TMPAnswer.maximumCommentLength)
    }
}

import Testing

@testable import WalletModel

@Suite struct TimestampTests {
    @Test(
        arguments: [
            (0, "1970-01-01T00:00:00.000Z"),
            (1, "1970-01-01T00:00:00.001Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (1_795_500_600_123, "2026-11-24T06:10:00.123Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (253_402_300_800_000, "10000-01-01T00:00:00.000Z"),
            (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        ] as [(Int64, String)])
    func printsISO8601InUTC(milliseconds: Int64, text: String) {
        #expect(Timestamp(milliseconds: milliseconds).iso8601 == text)
    }

    /// What is printed parses back to the same instant (the audit reads its rows back).
    @Test func printedTimesParseBack() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let time = Timestamp(milliseconds: Int64.random(in: 0..<253_402_300_800_000, using: &generator))
            #expect(Timestamp(iso8601: time.iso8601) == time)
        }
    }
}

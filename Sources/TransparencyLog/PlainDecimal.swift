/// An unsigned decimal as the transparency log's formats write one (a checkpoint's size, a
/// tlog-proof's index, a witness's tree size): ASCII digits, no sign, no leading zeros
/// (`0` alone is zero).
enum PlainDecimal {
    static func value<Text: StringProtocol>(_ text: Text) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), text == "0" || !text.hasPrefix("0")
        else { return nil }
        return UInt64(text)
    }
}

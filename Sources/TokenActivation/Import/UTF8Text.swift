extension String {
    /// The text of `bytes` if they are valid UTF-8, else nil: `String(validating:as:)` with
    /// a fast path for ASCII. The standard library's validating initialiser looks up generic
    /// type metadata on every call (Benchmarks/README.md, "Measured shapes"), where checking
    /// for ASCII first and decoding without a second check costs a pass over the bytes.
    init?(checkedUTF8 bytes: [UInt8]) {
        var ascii = true
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii {
            self.init(decoding: bytes, as: UTF8.self)
        } else {
            guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
            self = text
        }
    }
}

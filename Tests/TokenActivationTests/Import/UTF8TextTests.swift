import Testing
import WalletModel

@testable import TokenActivation

@Suite struct UTF8TextTests {
    /// The fast path answers exactly what `String(validating:as:)` answers.
    @Test(
        arguments: [
            [],
            Array("SN1,DAPL000000000001".utf8),
            Array("Zürich – 東京 🪪".utf8),
            [0x7F, 0x00, 0x41],
            [0x80],  // a lone continuation byte
            [0xC3],  // a sequence cut short
            [0xC0, 0xAF],  // an overlong encoding
            [0xED, 0xA0, 0x80],  // an encoded surrogate
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0x41, 0x42, 0xFF],  // ASCII, then a byte never valid
            [0xE2, 0x80, 0xAE],  // a bidirectional override: valid UTF-8
        ] as [[UInt8]])
    func agreesWithTheStandardLibrary(bytes: [UInt8]) {
        #expect(String(checkedUTF8: bytes) == String(validating: bytes, as: UTF8.self))
    }
}

import Testing

@testable import TransparencyLog

/// What the fuzzer found: base64 with other padding bits decodes to the same bytes, so a
/// lenient parser accepted two texts for one checkpoint or proof. Each is read strictly now:
/// only the text that writes back byte for byte.
@Suite struct StrictBase64Tests {
    static let root = "74bbjQ7RDBY8OkC6y/GHbcHzNVJQLaeII8XPVHwhcOg="
    /// The same bytes, the last character's unused bits set.
    static let looseRoot = "74bbjQ7RDBY8OkC6y/GHbcHzNVJQLaeII8XPVHwhcOh="

    @Test func onlyTheCanonicalTextDecodes() {
        #expect(Base64.decode(Self.root)?.count == 32)
        #expect(Base64.decode(Self.looseRoot) == nil)
        #expect(Base64.decode("74bbjQ7RDBY8OkC6y/GHbcHzNVJQLaeII8XPVHwhcOg") == nil, "padding missing")
        #expect(Base64.decode("74bbjQ7RDBY8OkC6\ny/GHbcHzNVJQLaeII8XPVHwhcOg=") == nil, "a line break")
    }

    @Test func aCheckpointAndAProofAreReadStrictly() throws {
        #expect(Checkpoint(text: "PeterNeumann\n6\n\(Self.root)\n")?.text == "PeterNeumann\n6\n\(Self.root)\n")
        #expect(Checkpoint(text: "PeterNeumann\n6\n\(Self.looseRoot)\n") == nil)
        let note = "PeterNeumann\n6\n\(Self.root)\n\n— PeterNeumann x08go5OShLeZ\n"
        #expect(throws: Never.self) { try TLogProof(text: "c2sp.org/tlog-proof@v1\nindex 0\n\(Self.root)\n\n" + note) }
        #expect(throws: TLogProof.Invalid.self) {
            try TLogProof(text: "c2sp.org/tlog-proof@v1\nindex 0\n\(Self.looseRoot)\n\n" + note)
        }
    }
}

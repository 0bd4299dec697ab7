import Foundation
import Testing
import WalletModel

@testable import TokenActivation

@Suite struct CSVRecordReaderTests {
    /// Reads every record, with a tiny chunk size so records straddle buffer refills.
    func records(_ text: [UInt8], chunkSize: Int = 3) throws(ImportError) -> [(Int, [String])] {
        let fd = descriptor(reading: text)
        defer { close(fd) }
        var reader = CSVRecordReader(reader: ByteReader(descriptor: fd, name: "test", chunkSize: chunkSize))
        var result: [(Int, [String])] = []
        while let record = try reader.next() { result.append((record.line, record.fields)) }
        return result
    }

    func records(_ text: String, chunkSize: Int = 3) throws(ImportError) -> [(Int, [String])] {
        try records(Array(text.utf8), chunkSize: chunkSize)
    }

    @Test(
        arguments: [
            ("a,b\n1,2\n", [(1, ["a", "b"]), (2, ["1", "2"])]),
            ("a,b\r\n1,2\r\n", [(1, ["a", "b"]), (2, ["1", "2"])]),
            ("a,b\n1,2", [(1, ["a", "b"]), (2, ["1", "2"])]),
            ("a,,c\n", [(1, ["a", "", "c"])]),
            ("a,\n", [(1, ["a", ""])]),
            ("\"x,y\",\"say \"\"hi\"\"\"\n", [(1, ["x,y", "say \"hi\""])]),
            ("\"two\nlines\",z\nnext,row\n", [(1, ["two\nlines", "z"]), (3, ["next", "row"])]),
            ("a\n\n\r\nb\n", [(1, ["a"]), (4, ["b"])]),
            ("\u{FEFF}serialNumber\nS\n", [(1, ["serialNumber"]), (2, ["S"])]),
            ("\"\"\n", [(1, [""])]),
            ("é,✓\n", [(1, ["é", "✓"])]),
            ("", []),
        ] as [(String, [(Int, [String])])])
    func parsesRFC4180(text: String, expected: [(Int, [String])]) throws {
        for chunkSize in [1, 2, 3, 7, 4096] {
            let parsed = try records(text, chunkSize: chunkSize)
            #expect(parsed.map(\.0) == expected.map(\.0), "chunk \(chunkSize)")
            #expect(parsed.map(\.1) == expected.map(\.1), "chunk \(chunkSize)")
        }
    }

    @Test(arguments: [
        ("a\n\"open,b\n", 2, "a quoted value is not closed"),
        ("a\nb\"c\n", 2, "a double quote inside an unquoted value (quote the whole value)"),
        ("\"a\"b\n", 1, "text after a closing double quote"),
    ])
    func rejectsMalformedQuoting(text: String, line: Int, reason: String) throws {
        let error = try #require(throws: ImportError.self) { try records(text) }
        #expect(error.line == line)
        #expect(error.message.hasSuffix(reason))
        #expect(error.code.rawValue == "import.invalidRow")
    }

    @Test func rejectsInvalidUTF8WithItsLine() throws {
        let error = try #require(throws: ImportError.self) { try records(Array("a\nok\n".utf8) + [0x53, 0xFF, 0x0A]) }
        #expect(error.line == 3)
        #expect(error.message.hasSuffix("invalid UTF-8"))
    }

    @Test func boundsTheLengthOfAValue() throws {
        let long = String(repeating: "x", count: CSVRecordReader.maxFieldBytes + 1)
        let error = try #require(throws: ImportError.self) { try records("a\n\"\(long)\"\n", chunkSize: 4096) }
        #expect(error.line == 2)
        #expect(error.message.hasSuffix("a value is longer than 4096 bytes"))
    }
}

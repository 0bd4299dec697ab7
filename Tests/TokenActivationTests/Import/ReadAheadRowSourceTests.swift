import Foundation
import Testing
import WalletModel

@testable import TokenActivation

/// The read-ahead source gives exactly the rows, the error and its place that the source it
/// wraps gives, whether the input ends inside a chunk, on a chunk's edge, or far past the
/// first chunks.
@Suite struct ReadAheadRowSourceTests {
    /// Every row up to the end or the error, as lines and serials, with the error's text.
    func drain(_ source: inout some ImportRowSource) -> (rows: [String], error: String?, bytes: Int) {
        var rows: [String] = []
        do {
            while let (line, fields) = try source.next() { rows.append("\(line):\(fields.serialNumber)") }
            return (rows, nil, source.bytesConsumed)
        } catch {
            return (rows, "\(error)", source.bytesConsumed)
        }
    }

    func csv(rows: Int, badAt: Int?) -> [UInt8] {
        var text = "serialNumber,deviceAccountIdentifier\n"
        for row in 1...rows {
            text += row == badAt ? "SN\(row)\n" : "SN\(row),DAPL\(row)\n"
        }
        return Array(text.utf8)
    }

    @Test(
        arguments: [
            (1, nil), (ReadAheadRowSource.rowsPerChunk, nil), (ReadAheadRowSource.rowsPerChunk + 1, nil),
            (ReadAheadRowSource.rowsPerChunk * (ReadAheadRowSource.chunksAhead + 3), nil),
            (20_000, 1), (20_000, ReadAheadRowSource.rowsPerChunk), (20_000, 17_321), (20_000, 20_000),
        ] as [(Int, Int?)])
    func givesWhatTheWrappedSourceGives(rows: Int, badAt: Int?) throws {
        let input = csv(rows: rows, badAt: badAt)
        let plainDescriptor = descriptor(reading: input)
        defer { close(plainDescriptor) }
        var plain = try CSVRowSource(reader: ByteReader(descriptor: plainDescriptor, name: "input"))
        let expected = drain(&plain)

        let aheadDescriptor = descriptor(reading: input)
        defer { close(aheadDescriptor) }
        var ahead = ReadAheadRowSource(try CSVRowSource(reader: ByteReader(descriptor: aheadDescriptor, name: "input")))
        let got = drain(&ahead)
        ahead.finish()

        #expect(got.rows == expected.rows)
        #expect(got.error == expected.error)
        #expect(got.rows.count == (badAt.map { $0 - 1 } ?? rows))
        if badAt == nil { #expect(got.bytes == input.count) }
    }

    /// A caller that stops early (a conflict while writing) stops the reader too, though it
    /// waits on a full queue.
    @Test func finishingEarlyStopsTheReader() throws {
        let fd = descriptor(reading: csv(rows: 100_000, badAt: nil))
        defer { close(fd) }
        let ahead = ReadAheadRowSource(try CSVRowSource(reader: ByteReader(descriptor: fd, name: "input")))
        #expect(try ahead.next()?.fields.serialNumber == "SN1")
        ahead.finish()
    }
}

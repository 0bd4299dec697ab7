import Foundation
import Synchronization
import Testing
import WalletModel

@testable import TokenActivation

/// The read-ahead rows are exactly the rows, the error and its place that the source they
/// wrap gives, whether the input ends inside a chunk, on a chunk's edge, or far past the
/// first chunks; progress is told in bytes up to the input's end.
@Suite struct ReadAheadRowsTests {
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

    /// The same through the read-ahead, chunk by chunk.
    func drain(_ ahead: ReadAheadRows) async -> (rows: [String], error: String?) {
        var rows: [String] = []
        do {
            while let chunk = try await ahead.next() {
                #expect(!chunk.isEmpty && chunk.count <= ReadAheadRows.rowsPerChunk)
                for (line, fields) in chunk { rows.append("\(line):\(fields.serialNumber)") }
            }
            return (rows, nil)
        } catch {
            return (rows, "\(error)")
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
            (1, nil), (ReadAheadRows.rowsPerChunk, nil), (ReadAheadRows.rowsPerChunk + 1, nil),
            (ReadAheadRows.rowsPerChunk * 40, nil),
            (20_000, 1), (20_000, ReadAheadRows.rowsPerChunk), (20_000, 17_321), (20_000, 20_000),
        ] as [(Int, Int?)])
    func givesWhatTheWrappedSourceGives(rows: Int, badAt: Int?) async throws {
        let input = csv(rows: rows, badAt: badAt)
        let plainDescriptor = descriptor(reading: input)
        defer { close(plainDescriptor) }
        var plain = try CSVRowSource(reader: ByteReader(descriptor: plainDescriptor, name: "input"))
        let expected = drain(&plain)

        let aheadDescriptor = descriptor(reading: input)
        defer { close(aheadDescriptor) }
        let told = Told()
        let ahead = ReadAheadRows(
            try CSVRowSource(reader: ByteReader(descriptor: aheadDescriptor, name: "input")),
            progress: { bytes in told.bytes.withLock { $0.append(bytes) } })
        let got = await drain(ahead)
        await ahead.finish()

        #expect(got.rows == expected.rows)
        #expect(got.error == expected.error)
        #expect(got.rows.count == (badAt.map { $0 - 1 } ?? rows))
        let bytes = told.bytes.withLock { $0 }
        #expect(bytes == bytes.sorted())
        if badAt == nil { #expect(bytes.last == input.count) }
    }

    /// A caller that stops early (a conflict while writing) stops the reader too: `finish()`
    /// returns once the read under way is done, none starts after, and the input is not read
    /// to its end.
    @Test func finishingEarlyStopsTheReader() async throws {
        let fd = descriptor(reading: csv(rows: 100_000, badAt: nil))
        defer { close(fd) }
        let told = Told()
        let ahead = ReadAheadRows(
            try CSVRowSource(reader: ByteReader(descriptor: fd, name: "input")),
            progress: { bytes in told.bytes.withLock { $0.append(bytes) } })
        #expect(try await ahead.next()?.first?.fields.serialNumber == "SN1")
        await ahead.finish()
        #expect(try await ahead.next() == nil)
        #expect(told.bytes.withLock { $0.last ?? 0 } < 100_000 * 10)
    }

    /// The chunks come in the input's order however the tasks around them are scheduled: a
    /// short input (one chunk, then the end) read 400 times, 16 at once, gives its rows every
    /// time. (Reads once started from tasks of their own could reach the queue out of order,
    /// and an import then read nothing.)
    @Test func chunksComeInTheInputsOrderUnderLoad() async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for round in 0..<400 {
                if round >= 16 { _ = try await group.next() }
                group.addTask {
                    let fd = descriptor(reading: csv(rows: 2, badAt: nil))
                    defer { close(fd) }
                    let ahead = ReadAheadRows(try CSVRowSource(reader: ByteReader(descriptor: fd, name: "input")))
                    let got = await drain(ahead)
                    await ahead.finish()
                    #expect(got.rows == ["2:SN1", "3:SN2"] && got.error == nil, "\(got)")
                    return got.rows.count
                }
            }
            for try await _ in group {}
        }
    }

    /// The progress the reader told.
    final class Told: Sendable {
        let bytes = Mutex<[Int]>([])
    }
}

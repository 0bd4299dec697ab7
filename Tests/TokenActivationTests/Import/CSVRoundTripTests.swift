import Foundation
import Testing
import WalletModel

@testable import TokenActivation

/// Seeded random inputs: the reader never crashes on arbitrary bytes, and whatever the
/// exporter writes, the reader reads back unchanged.
@Suite struct CSVRoundTripTests {
    /// A small deterministic generator (SplitMix64), so a failure can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func readAll(_ bytes: [UInt8], chunkSize: Int) -> Result<[[String]], ImportError> {
        let fd = descriptor(reading: bytes)
        defer { close(fd) }
        var reader = CSVRecordReader(reader: ByteReader(descriptor: fd, name: "random", chunkSize: chunkSize))
        var records: [[String]] = []
        do {
            while let record = try reader.next() { records.append(record.fields) }
            return .success(records)
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: [1, 2, 3])
    func arbitraryBytesNeverCrashAndTheChunkSizeDoesNotMatter(seed: UInt64) {
        var generator = SeededGenerator(state: seed)
        let alphabet: [UInt8] = Array("a,\"\r\n ".utf8) + [0xC3, 0xA9, 0xFF, 0x00]
        for _ in 0..<300 {
            let bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            let whole = readAll(bytes, chunkSize: 4096)
            let tiny = readAll(bytes, chunkSize: 1)
            #expect("\(whole)" == "\(tiny)", "seed \(seed), input \(bytes)")
        }
    }

    @Test(arguments: [11, 12, 13])
    func exportedRecordsReadBackUnchanged(seed: UInt64) throws {
        var generator = SeededGenerator(state: seed)
        let characters = Array("aZ9 ,\"'é✓-_.;")
        var records: [PassRecord] = []
        for index in 0..<200 {
            let serial = String(
                (0..<Int.random(in: 1...20, using: &generator)).map { _ in characters.randomElement(using: &generator)!
                })
            let device: String? =
                Bool.random(using: &generator)
                ? nil
                : String(
                    (0..<Int.random(in: 1...8, using: &generator)).map { _ in
                        characters.randomElement(using: &generator)!
                    })
            records.append(PassRecord(serialNumber: serial, deviceAccountIdentifier: "DAPL\(index)", device: device))
        }
        let text = WalletExporter.header + "\n" + records.map { WalletExporter.csvLine($0) + "\n" }.joined()
        let parsed = try readAll(Array(text.utf8), chunkSize: 7).get()
        #expect(parsed.count == records.count + 1)
        for (record, fields) in zip(records, parsed.dropFirst()) {
            #expect(fields[0] == record.serialNumber)
            #expect(fields[1] == record.deviceAccountIdentifier)
            #expect(fields[4] == (record.device ?? ""))
        }
    }
}

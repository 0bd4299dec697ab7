import Foundation
import Logging
import Testing

@testable import TokenctlApp

@Suite struct LogLineTests {
    let time = Date(timeIntervalSince1970: 1_764_107_400.25)

    @Test(arguments: [
        (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
    ])
    func eachLevelHasItsSyslogPriority(level: Logger.Level, priority: Int) {
        #expect(LogLine.priority(level) == priority)
        let line = LogLine(format: .text, journal: true).render(
            level: level, label: "tokenctl.x", message: "m", metadata: [:], time: time)
        #expect(line == "<\(priority)>\(level) tokenctl.x: m")
    }

    @Test func textCarriesTheTimeAndSortedFieldsOffTheJournal() {
        let line = LogLine(format: .text, journal: false).render(
            level: .warning, label: "tokenctl.activation", message: "retrying",
            metadata: ["serial": "…7890", "attempt": "2"], time: time
        )
        #expect(line == "2025-11-25T21:50:00.250Z warning tokenctl.activation: attempt=2 serial=…7890 retrying")
    }

    @Test func jsonIsOneObjectPerLineWithNestedMetadata() throws {
        for journal in [false, true] {
            let line = LogLine(format: .json, journal: journal).render(
                level: .error, label: "tokenctl.service", message: "said \"no\"\nthen left",
                metadata: ["outcome": "FAILED", "codes": ["a", "b"], "detail": ["status": "503"]], time: time
            )
            #expect(!line.contains("\n"))
            let body = journal ? String(try #require(line.split(separator: ">", maxSplits: 1).last)) : line
            #expect(line.hasPrefix("<3>") == journal)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            #expect(object["time"] as? String == "2025-11-25T21:50:00.250Z")
            #expect(object["level"] as? String == "error")
            #expect(object["logger"] as? String == "tokenctl.service")
            #expect(object["message"] as? String == "said \"no\"\nthen left")
            let metadata = try #require(object["metadata"] as? [String: Any])
            #expect(metadata["outcome"] as? String == "FAILED")
            #expect(metadata["codes"] as? [String] == ["a", "b"])
            #expect((metadata["detail"] as? [String: String]) == ["status": "503"])
        }
    }

    @Test func aJournalStreamIsTheDescriptorItNames() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("stderr")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let descriptor = open(path, O_WRONLY)
        defer { close(descriptor) }
        var status = stat()
        #expect(fstat(descriptor, &status) == 0)
        #expect(LogOutput.isJournalStream("\(status.st_dev):\(status.st_ino)", descriptor: descriptor))
        #expect(!LogOutput.isJournalStream("\(status.st_dev):\(status.st_ino + 1)", descriptor: descriptor))
        #expect(!LogOutput.isJournalStream(nil, descriptor: descriptor))
        #expect(!LogOutput.isJournalStream("garbage", descriptor: descriptor))
        #expect(!LogOutput.isJournalStream("\(status.st_dev):\(status.st_ino)", descriptor: -1))
    }
}

import Foundation
import Logging

/// swift-log's handler for tokenctl: each record one ``LogLine`` on standard error, written
/// with one write(2) so lines of concurrent threads never interleave.
struct SupervisedLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    let journal: Bool
    var metadata: Logger.Metadata = [:]

    init(label: String, logLevel: Logger.Level, journal: Bool) {
        self.label = label
        self.logLevel = logLevel
        self.journal = journal
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let line =
            LogLine(format: LogOutput.format, journal: journal)
            .render(level: event.level, label: label, message: event.message, metadata: fields, time: Date()) + "\n"
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 {
                    if written < 0, errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

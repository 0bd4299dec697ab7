import Foundation
import Logging
import TextFormats
import TokenctlConfiguration
import WalletModel

/// One log record as the line written to standard error. Under a supervisor that reads
/// standard error as a journal stream, the line starts with its syslog priority (`<4>`), which
/// journald takes as the record's level, and text lines leave the time to the journal.
struct LogLine {
    var format: LogFormat
    var journal: Bool

    func render(
        level: Logger.Level, label: String, message: Logger.Message, metadata: Logger.Metadata, time: Date
    ) -> String {
        let prefix = journal ? "<\(Self.priority(level))>" : ""
        switch format {
        case .text:
            let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let stamp = journal ? "" : Self.timestamp(time) + " "
            return prefix + stamp + "\(level) \(label):" + (fields.isEmpty ? "" : " " + fields) + " \(message)"
        case .json:
            var object = JSONObject([
                "time": .string(Self.timestamp(time)), "level": .string(level.rawValue),
                "logger": .string(label), "message": .string(message.description),
            ])
            if !metadata.isEmpty {
                var fields = JSONObject([:])
                for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { fields.append(key, Self.json(value)) }
                object.append("metadata", .object(fields))
            }
            return prefix + object.text
        }
    }

    /// syslog(3) priorities: swift-log's trace and debug are both debug (7).
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    static func json(_ value: Logger.MetadataValue) -> JSONObject.Value {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let value): .string(value.description)
        case .array(let values): .array(values.map(json))
        case .dictionary(let fields):
            .object(
                fields.sorted { $0.key < $1.key }.reduce(into: JSONObject([:])) { $0.append($1.key, json($1.value)) })
        }
    }

    /// RFC 3339 in UTC with milliseconds.
    static func timestamp(_ time: Date) -> String {
        var seconds = time_t(time.timeIntervalSince1970.rounded(.down))
        let milliseconds = Int((time.timeIntervalSince1970 - Double(seconds)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), milliseconds
        )
    }
}

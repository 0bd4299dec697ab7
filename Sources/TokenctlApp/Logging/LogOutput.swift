import Foundation
import Logging
import Synchronization
import TokenctlConfiguration

/// Where tokenctl's logs go: standard error, at one level, as text or JSON, with syslog
/// priority prefixes when standard error is a journal stream (`$JOURNAL_STREAM` names its
/// device and inode, as systemd sets it). Set up once per process; the format the
/// configuration names (`log.format`) applies once the settings are read, unless
/// `--log-format` chose one.
public enum LogOutput {
    private struct State {
        var format: LogFormat = .text
        var formatFromFlag = false
        var bootstrapped = false
    }

    private static let state = Mutex(State())

    /// Sets up swift-log. `level` and `format` are the flags' values, if given; otherwise
    /// `$TOKENCTL_LOG_LEVEL` (else `defaultLevel`) and `$TOKENCTL_LOG_FORMAT` (else text).
    /// Later calls change nothing (swift-log allows one setup per process).
    public static func bootstrap(
        level: String?, format: LogFormat?, defaultLevel: Logger.Level, environment: [String: String]
    ) {
        let first = state.withLock { state in
            guard !state.bootstrapped else { return false }
            state.bootstrapped = true
            state.formatFromFlag = format != nil
            state.format = format ?? environment["TOKENCTL_LOG_FORMAT"].flatMap(LogFormat.init(rawValue:)) ?? .text
            return true
        }
        guard first else { return }
        let level = (level ?? environment["TOKENCTL_LOG_LEVEL"]).flatMap(Logger.Level.init(rawValue:)) ?? defaultLevel
        let journal = journalStream
        LoggingSystem.bootstrap { label in
            SupervisedLogHandler(label: label, logLevel: level, journal: journal)
        }
    }

    /// The configuration's format, unless `--log-format` gave one.
    public static func configure(_ settings: Settings) {
        state.withLock { state in
            if !state.formatFromFlag { state.format = settings.logFormat }
        }
    }

    static var format: LogFormat { state.withLock { $0.format } }

    /// Whether standard error is the journal's stream (checked once).
    public static let journalStream = isJournalStream(
        ProcessInfo.processInfo.environment["JOURNAL_STREAM"], descriptor: STDERR_FILENO)

    /// A message for the person at the terminal, such as `tokenctl: … (code)`, as written to
    /// standard error: under the journal with the priority of an error (`<3>`).
    /// A usage error as every command reports it: `tokenctl: message (usage.invalid)`, the
    /// command's usage under it, and where its help is (`see 'tokenctl wallet list --help'`).
    public static func usageLines(_ message: String, usage: String, command: String) -> String {
        let text = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
        return errorLine("tokenctl: \(text) (usage.invalid)") + "usage: \(usage)\nsee '\(command) --help'\n"
    }

    public static func errorLine(_ text: String) -> String {
        (journalStream ? "<\(LogLine.priority(.error))>" : "") + text + "\n"
    }

    /// The same message where standard error is a log (the service's): with `--log-format
    /// json` a JSON record of level error like every other line, so that a log reader never
    /// meets a line it cannot parse.
    public static func errorRecord(_ text: String) -> String {
        guard format == .json else { return errorLine(text) }
        return LogLine(format: .json, journal: journalStream).render(
            level: .error, label: "tokenctl", message: "\(text)", metadata: [:], time: Date()) + "\n"
    }

    /// Whether `descriptor` is the stream `$JOURNAL_STREAM` (`DEVICE:INODE`) names: a child
    /// that inherited the variable but writes elsewhere gets plain lines.
    static func isJournalStream(_ value: String?, descriptor: Int32) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}

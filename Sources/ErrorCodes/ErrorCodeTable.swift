/// The tables `tokenctl help exit-codes` prints, generated from ``ExitStatus`` and
/// ``ErrorCode`` so that they cannot drift from the code.
public enum ErrorCodeTable {
    /// The statuses of a command a signal stopped (128 + the signal's number), which no
    /// error code carries: a batch, a service or a prompt interrupted.
    public static let signalStatuses: [(status: Int32, meaning: String)] = [
        (130, "interrupted: SIGINT (Ctrl-C), or the end of input at a prompt"),
        (143, "stopped by SIGTERM; what was in flight finished first"),
    ]

    /// Markdown: the exit statuses, then every error code with its status and meaning.
    public static var markdown: String {
        var lines = ["| exit | meaning |", "|---|---|"]
        for status in ExitStatus.allCases {
            lines.append("| \(status.rawValue) | \(status.meaning) |")
        }
        for (status, meaning) in signalStatuses {
            lines.append("| \(status) | \(meaning) |")
        }
        lines += ["", "| error code | exit | meaning |", "|---|---|---|"]
        for code in ErrorCode.allCases {
            lines.append("| `\(code.rawValue)` | \(code.exitStatus.rawValue) | \(code.meaning) |")
        }
        return lines.joined(separator: "\n")
    }

    /// Aligned plain text for a terminal.
    public static var text: String {
        var lines = ["EXIT  MEANING"]
        for status in ExitStatus.allCases {
            lines.append(pad(String(status.rawValue), 6) + status.meaning)
        }
        for (status, meaning) in signalStatuses {
            lines.append(pad(String(status), 6) + meaning)
        }
        let width = (ErrorCode.allCases.map(\.rawValue.count).max() ?? 0) + 2
        lines += ["", pad("ERROR CODE", width) + "EXIT  MEANING"]
        for code in ErrorCode.allCases {
            lines.append(pad(code.rawValue, width) + pad(String(code.exitStatus.rawValue), 6) + code.meaning)
        }
        return lines.joined(separator: "\n")
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(1, width - text.count))
    }
}

/// The tables `tokenctl help exit-codes` prints, generated from ``ExitStatus`` and
/// ``ErrorCode`` so that they cannot drift from the code.
public enum ErrorCodeTable {
    /// Markdown: the exit statuses, then every error code with its status and meaning.
    public static var markdown: String {
        var lines = ["| exit | meaning |", "|---|---|"]
        for status in ExitStatus.allCases {
            lines.append("| \(status.rawValue) | \(status.meaning) |")
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

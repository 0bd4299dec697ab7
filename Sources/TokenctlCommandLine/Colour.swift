import Foundation
import Glibc

/// Outcome words in colour on a terminal: APPROVED green, DECLINED and FAILED red, UNKNOWN
/// yellow. Off when standard output is not a terminal, when `NO_COLOR` is set (no-color.org)
/// or `TERM` is `dumb`.
public enum Colour {
    public static let enabled: Bool = {
        let environment = ProcessInfo.processInfo.environment
        if let noColour = environment["NO_COLOR"], !noColour.isEmpty { return false }
        if environment["TERM"] == "dumb" { return false }
        return isatty(STDOUT_FILENO) == 1
    }()

    /// `text` (an outcome, possibly padded) wrapped in its colour when colour is on.
    public static func outcome(_ text: String, outcome: String?) -> String {
        guard enabled, let code = code(for: outcome) else { return text }
        // Padding stays outside the escape codes so columns keep their width.
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let padding = String(text.dropFirst(trimmed.count))
        return "\u{1B}[\(code)m\(trimmed)\u{1B}[0m\(padding)"
    }

    private static func code(for outcome: String?) -> Int? {
        switch outcome {
        case "APPROVED": 32
        case "DECLINED", "FAILED": 31
        case "UNKNOWN": 33
        default: nil
        }
    }
}

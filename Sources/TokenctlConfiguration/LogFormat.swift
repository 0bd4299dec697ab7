/// How log lines are written (`--log-format`, `log.format`): one line of text per record, or
/// one JSON object per line for a log shipper.
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json

    public static let names = allCases.map(\.rawValue).joined(separator: ", ")
}

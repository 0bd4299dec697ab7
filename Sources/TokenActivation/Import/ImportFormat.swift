/// The formats `wallet import` reads and `wallet export` writes.
public enum WalletFileFormat: String, Sendable, CaseIterable {
    /// Comma-separated values with a header row of the pass keys.
    case csv
    /// JSON Lines: one object a line with the pass keys.
    case jsonl

    /// The format a file name implies, if its extension is known.
    public static func inferred(fromPath path: String) -> WalletFileFormat? {
        let lower = path.lowercased()
        if lower.hasSuffix(".csv") { return .csv }
        if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") { return .jsonl }
        return nil
    }
}

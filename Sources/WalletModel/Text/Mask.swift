/// Masks identifiers (device account identifier, token reference, serial number) for
/// human output and logs: the first 4 and last 4 characters with `…` between; values of
/// 8 characters or fewer show `…` and the last 2.
public enum Mask {
    public static func identifier(_ value: String) -> String {
        let characters = Array(value)
        if characters.count <= 8 {
            return "…" + String(characters.suffix(2))
        }
        return String(characters.prefix(4)) + "…" + String(characters.suffix(4))
    }

    /// `value` masked unless `reveal` is set.
    public static func identifier(_ value: String, reveal: Bool) -> String {
        reveal ? value : identifier(value)
    }
}

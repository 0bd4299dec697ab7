/// Masks identifiers (device account identifier, token reference, serial number) for
/// human output and logs: the first 4 and last 4 Unicode scalars with `…` between; values of
/// 8 scalars or fewer show `…` and the last 2. Counted in scalars, not `Character`s: a
/// grapheme cluster may hold any number of scalars, and a mask must bound what it shows.
public enum Mask {
    public static func identifier(_ value: String) -> String {
        let scalars = Array(value.unicodeScalars)
        func text(_ part: ArraySlice<Unicode.Scalar>) -> String { String(String.UnicodeScalarView(part)) }
        if scalars.count <= 8 {
            return "…" + text(scalars.suffix(2))
        }
        return text(scalars.prefix(4)) + "…" + text(scalars.suffix(4))
    }

    /// `value` masked unless `reveal` is set.
    public static func identifier(_ value: String, reveal: Bool) -> String {
        reveal ? value : identifier(value)
    }
}

/// "Did you mean": the known name closest in spelling to a word that was not recognised.
/// Words are compared by Unicode scalar, and a comparison stops as soon as it cannot come
/// within the distance asked for: a word of any length (a hostile configuration's key) costs
/// at most its length times the candidate's.
public enum Spelling {
    /// Levenshtein distance: the fewest single-scalar insertions, deletions and
    /// substitutions that turn `a` into `b`.
    public static func distance(_ a: String, _ b: String) -> Int {
        distance(Array(a.unicodeScalars), Array(b.unicodeScalars), atMost: Int.max - 1)!
    }

    /// The candidate closest to `word` within `maximumDistance` edits (or, with
    /// `acceptingPrefixes`, one that `word` begins); of equally close ones, the first given.
    public static func closest(
        to word: String, among candidates: some Sequence<String>, maximumDistance: Int, acceptingPrefixes: Bool = false
    ) -> String? {
        let scalars = Array(word.unicodeScalars)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let other = Array(candidate.unicodeScalars)
            let found: Int?
            if acceptingPrefixes && other.starts(with: scalars) {
                // A word that begins the candidate is exactly the rest's insertions away.
                found = other.count - scalars.count
            } else {
                found = distance(scalars, other, atMost: min(maximumDistance, (best?.distance ?? Int.max) - 1))
            }
            if let found, found < best?.distance ?? Int.max { best = (candidate, found) }
        }
        return best?.name
    }

    /// The distance when it is at most `limit`, else nil. A length difference beyond the
    /// limit answers at once; a row of the table whose every entry exceeds it ends the count
    /// (a row's smallest entry never decreases in the next).
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], atMost limit: Int) -> Int? {
        guard limit >= 0, abs(a.count - b.count) <= limit else { return nil }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in a.indices {
            current[0] = i + 1
            var rowMinimum = current[0]
            for j in b.indices {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1))
                rowMinimum = Swift.min(rowMinimum, current[j + 1])
            }
            if rowMinimum > limit { return nil }
            swap(&previous, &current)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }
}

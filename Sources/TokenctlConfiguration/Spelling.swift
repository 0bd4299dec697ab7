/// "Did you mean": the known name closest in spelling to a word that was not recognised.
public enum Spelling {
    /// Levenshtein distance: the fewest single-character insertions, deletions and
    /// substitutions that turn `a` into `b`.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The candidate closest to `word` within `maximumDistance` edits (or, with
    /// `acceptingPrefixes`, one that `word` begins); of equally close ones, the first given.
    public static func closest(to word: String, among candidates: some Sequence<String>, maximumDistance: Int, acceptingPrefixes: Bool = false) -> String? {
        candidates
            .map { ($0, distance(word, $0)) }
            .filter { $0.1 <= maximumDistance || (acceptingPrefixes && $0.0.hasPrefix(word)) }
            .min { $0.1 < $1.1 }?.0
    }
}

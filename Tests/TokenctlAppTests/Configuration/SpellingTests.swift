import Testing
import TokenctlConfiguration

/// "Did you mean" for configuration keys and subcommands: the distance, the closest
/// candidate, ties, prefixes, and words far longer than any candidate.
@Suite struct SpellingTests {
    @Test(arguments: [
        ("", "", 0), ("", "abc", 3), ("kitten", "sitting", 3), ("flaw", "lawn", 2),
        ("database.path", "database.paht", 2), ("tmp.base-url", "tmp.base-url", 0), ("é", "e", 1),
    ])
    func distance(a: String, b: String, expected: Int) {
        #expect(Spelling.distance(a, b) == expected)
        #expect(Spelling.distance(b, a) == expected)
    }

    /// The bounded count agrees with the whole table on every pair of short words over a
    /// small alphabet (where near misses abound).
    @Test func theBoundedCountAgreesWithTheWholeTable() {
        let words = ["", "a", "b", "ab", "ba", "abc", "bca", "aabb", "abab", "baba", "cabba", "abcabc"]
        for a in words {
            for b in words {
                let whole = reference(Array(a), Array(b))
                #expect(Spelling.distance(a, b) == whole, "\(a) \(b)")
                for limit in 0...4 {
                    let closest = Spelling.closest(to: a, among: [b], maximumDistance: limit)
                    #expect(closest == (whole <= limit ? b : nil), "\(a) \(b) within \(limit)")
                }
            }
        }
    }

    @Test func theClosestWithinTheDistanceAndTheFirstOfEquals() {
        let keys = ["database.path", "database.url", "tmp.base-url", "log.level"]
        #expect(Spelling.closest(to: "database.pth", among: keys, maximumDistance: 3) == "database.path")
        #expect(Spelling.closest(to: "log.levels", among: keys, maximumDistance: 3) == "log.level")
        #expect(Spelling.closest(to: "nothing.like", among: keys, maximumDistance: 3) == nil)
        #expect(Spelling.closest(to: "ab", among: ["ax", "xb"], maximumDistance: 1) == "ax")
        #expect(Spelling.closest(to: "ab", among: ["xb", "ax", "ab"], maximumDistance: 1) == "ab")
    }

    @Test func aPrefixIsAcceptedWhenAskedAtTheNumberOfScalarsItLacks() {
        let commands = ["activate", "audit", "config", "completions"]
        #expect(
            Spelling.closest(to: "compl", among: commands, maximumDistance: 2, acceptingPrefixes: true) == "completions"
        )
        #expect(Spelling.closest(to: "compl", among: commands, maximumDistance: 2) == nil)
        // A closer word beats a longer completion.
        #expect(
            Spelling.closest(to: "conf", among: ["configuration", "cong"], maximumDistance: 2, acceptingPrefixes: true)
                == "cong")
    }

    @Test func aWordFarLongerThanEveryCandidateHasNoSuggestion() {
        let long = String(repeating: "database.path", count: 20_000)
        #expect(Spelling.closest(to: long, among: ["database.path", "database.url"], maximumDistance: 3) == nil)
        #expect(Spelling.closest(to: "database.path" + "x", among: [long], maximumDistance: 3) == nil)
    }

    private func reference(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                table[i][j] = min(
                    table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
        }
        return table[a.count][b.count]
    }
}

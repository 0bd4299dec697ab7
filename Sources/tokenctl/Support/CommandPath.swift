import ArgumentParser

/// The command words of an argument list, checked against the command tree before
/// ArgumentParser sees them, so a mistyped command gets "did you mean" like a mistyped flag.
enum CommandPath {
    /// The command types named by the leading words, and the first word that names no
    /// subcommand where one was expected (with the names it could have been).
    static func resolve(_ arguments: [String], root: any ParsableCommand.Type) -> (path: [any ParsableCommand.Type], unknown: (word: String, candidates: [String])?) {
        var path: [any ParsableCommand.Type] = [root]
        for word in arguments {
            guard !word.hasPrefix("-") else { break }
            let current = path.last!
            let subcommands = current.configuration.subcommands
            guard !subcommands.isEmpty else { break }
            if let next = subcommands.first(where: { $0._commandName == word }) {
                path.append(next)
            } else {
                return (path, (word, subcommands.map { $0._commandName }))
            }
        }
        return (path, nil)
    }

    /// The closest candidate within two edits, for "did you mean".
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        candidates
            .map { ($0, distance(word.lowercased(), $0)) }
            .filter { $0.1 <= 2 || $0.0.hasPrefix(word.lowercased()) }
            .min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }

    /// `tokenctl wallet list`, for "see … --help".
    static func name(_ path: [any ParsableCommand.Type]) -> String {
        path.map { $0._commandName }.joined(separator: " ")
    }
}

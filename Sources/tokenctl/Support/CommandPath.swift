import ArgumentParser
import TokenctlApp
import TokenctlCommandLine
import TokenctlConfiguration

/// The command words of an argument list, checked against the command tree before
/// ArgumentParser sees them, so a mistyped command gets "did you mean" like a mistyped flag.
enum CommandPath {
    /// The command types named by the leading words, and the first word that names no
    /// subcommand where one was expected (with the names it could have been).
    static func resolve(
        _ arguments: [String], root: any ParsableCommand.Type
    ) -> (path: [any ParsableCommand.Type], unknown: (word: String, candidates: [String])?) {
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

    /// The closest candidate within two edits (or one the word begins), for "did you mean".
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        Spelling.closest(to: word.lowercased(), among: candidates, maximumDistance: 2, acceptingPrefixes: true)
    }

    /// `tokenctl wallet list`, for "see … --help".
    static func name(_ path: [any ParsableCommand.Type]) -> String {
        path.map { $0._commandName }.joined(separator: " ")
    }
}

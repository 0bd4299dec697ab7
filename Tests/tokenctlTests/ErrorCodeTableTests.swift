import ErrorCodes
import Foundation
import TestSupport
import Testing

/// The error-code table is generated from the code; docs/exit-codes.md carries it verbatim, and
/// every code a test or the sandbox names exists.
struct ErrorCodeTableTests {
    static let begin = "<!-- exit-codes:begin (tokenctl help exit-codes --markdown) -->"
    static let end = "<!-- exit-codes:end -->"

    @Test func theExitCodesPageIsTheGeneratedTable() throws {
        let generated = try CLI().run("help", "exit-codes", "--markdown")
        #expect(generated.status == 0)
        let readme = try String(contentsOfFile: repositoryRoot + "/docs/exit-codes.md", encoding: .utf8)
        let start = try #require(readme.range(of: Self.begin)), stop = try #require(readme.range(of: Self.end))
        let table = readme[start.upperBound..<stop.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            table == generated.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            "regenerate docs/exit-codes.md's table with: tokenctl help exit-codes --markdown")
        #expect(generated.stdout == ErrorCodeTable.markdown + "\n")
        // The statuses a signal gives are in the table, as the guide documents them.
        #expect(table.contains("| 130 | interrupted: SIGINT (Ctrl-C)"))
        #expect(table.contains("| 143 | stopped by SIGTERM"))
    }

    @Test func itsHelpIsItsOwnAndABadFlagIsAUsageError() throws {
        let help = try CLI().run("help", "exit-codes", "--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: tokenctl help exit-codes [--markdown] [--json]"))
        #expect(help.stdout.contains("--json"))
        for extra in ["--bogus", "extra"] {
            let bad = try CLI().run("help", "exit-codes", extra)
            #expect(bad.status == 64)
            // The one format of every usage error: message and code, usage, where to read more.
            let lines = bad.stderr.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(bad.stderr)")
            #expect(lines.first?.hasPrefix("tokenctl: ") == true && lines.first?.hasSuffix(" (usage.invalid)") == true)
            #expect(lines.dropFirst().first == "usage: tokenctl help exit-codes [--markdown] [--json]")
            #expect(lines.last == "see 'tokenctl help exit-codes --help'")
        }
    }

    @Test func theJSONTableListsEveryCode() throws {
        let result = try CLI().run("help", "exit-codes", "--json")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(rows.compactMap { $0["code"] as? String } == ErrorCode.allCases.map(\.rawValue))
        #expect(rows.compactMap { $0["exit"] as? Int }.map(Int32.init) == ErrorCode.allCases.map(\.exitStatus.rawValue))
    }

    /// Every string of the form `namespace.name` for our namespaces, in the tests and the
    /// sandbox, is a code of the enum: a typo or a code nobody declared fails here.
    @Test func everyCodeTheTestsOrTheSandboxNameIsInTheEnum() throws {
        let namespaces = Set(ErrorCode.allCases.map { String($0.rawValue.split(separator: ".")[0]) })
        let known = Set(ErrorCode.allCases.map(\.rawValue))
        let pattern = try NSRegularExpression(pattern: #""([a-z]+)\.([a-z][A-Za-z0-9]*)""#)
        var unknown: [String] = []
        var seen = 0
        for folder in ["Tests", "Sources/Sandbox"] {
            let root = repositoryRoot + "/" + folder
            for case let path as String in FileManager.default.enumerator(atPath: root) ?? NSEnumerator()
            where path.hasSuffix(".swift") {
                let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
                for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let namespace = String(text[Range(match.range(at: 1), in: text)!])
                    let code = namespace + "." + String(text[Range(match.range(at: 2), in: text)!])
                    // Logger labels (tokenctl.*) are outside our namespaces; file names are listed below.
                    guard namespaces.contains(namespace), !Self.events.contains(code) else { continue }
                    seen += 1
                    if !known.contains(code) { unknown.append("\(folder)/\(path): \(code)") }
                }
            }
        }
        #expect(unknown.isEmpty, "codes not in ErrorCode: \(unknown)")
        #expect(seen > 100)
    }

    /// File names, log messages and configuration keys the tests use that share the shape of a code.
    static let events: Set<String> = [
        "config.json", "tmp.token", "service.token", "onboarding.sqlite", "wallet.sqlite", "activation.finished",
        "activation.failed",
        "activation.finishNotWritten", "service.ready", "service.draining", "audit.witnesses", "audit.logCut",
        "audit.witnessFailed",
    ]
}

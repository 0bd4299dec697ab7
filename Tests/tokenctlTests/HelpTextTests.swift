import ErrorCodes
import Foundation
import Sandbox
import Testing

/// Every command's `--help` as a newcomer reads it: examples whole, on lines of their own;
/// defaults and behaviours named where the help promises them.
@Suite struct HelpTextTests {
    /// Every command path of the tree, from the parser's own dump.
    static func commandPaths() throws -> [[String]] {
        let dump = try CLI().run("--experimental-dump-help")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        func walk(_ command: [String: Any], _ path: [String]) -> [[String]] {
            let children = command["subcommands"] as? [[String: Any]] ?? []
            return [path] + children.flatMap { walk($0, path + [$0["commandName"] as? String ?? ""]) }
        }
        return walk(try #require(root["command"] as? [String: Any]), []).filter { $0.last != "help" }
    }

    /// An example is a block: `Example:` or `Examples:` alone, then one command per line
    /// (a trailing backslash continues it on an indented line), each within 80 columns, so
    /// it can be copied whole.
    @Test func examplesAreWholeCommandsOnLinesOfTheirOwn() throws {
        let paths = try Self.commandPaths()
        #expect(paths.count > 50)
        var examples = 0
        for path in paths {
            let help = try CLI().run(path + ["--help"])
            #expect(help.status == 0, "\(path)")
            let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (index, line) in lines.enumerated() where line.contains("Example") {
                #expect(line == "Example:" || line == "Examples:", "\(path): \(line)")
                var next = index + 1
                while next < lines.count, !lines[next].isEmpty {
                    let command = lines[next]
                    let continued = lines[next - 1].hasSuffix("\\")
                    #expect(
                        continued
                            ? command.hasPrefix("    ")
                            : command.hasPrefix("  tokenctl ") || command.hasPrefix("  TOKENCTL_"),
                        "\(path): \(command)")
                    #expect(command.count <= 80, "\(path): \(command)")
                    examples += 1
                    next += 1
                }
            }
        }
        #expect(examples >= 10)
    }

    @Test func theTopLevelHelpNamesEveryGlobalOptionAndEveryExitCode() throws {
        let help = try CLI().run("--help").stdout
        #expect(help.contains("--config, --database, --host-id, --log-level, --log-format"))
        for status in ExitStatus.allCases {
            #expect(help.contains("\(status.rawValue)"), "\(status)")
        }
        #expect(help.contains("a server unreachable"))
        #expect(help.contains("130 interrupted: SIGINT (Ctrl-C)"))
        #expect(help.contains("143 stopped by SIGTERM"))
        #expect(!help.contains("69 TMP unreachable"))
        for line in help.split(separator: "\n") where line.hasPrefix("  ") && line.dropFirst(2).first?.isNumber == true
        {
            #expect(line.count <= 80, "\(line)")
        }
    }

    @Test(arguments: [["device", "token"], ["device", "remove"]])
    func theSignatureTypeHelpNamesItsDefault(path: [String]) throws {
        let help = try CLI().run(path + ["--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression)
        #expect(
            help.contains("Default: possession for `device token`, possession_knowledge for `device remove`"), "\(help)"
        )
        #expect(!help.contains("names its default"))
    }

    @Test func theSandboxHelpNamesTheIdentityEndpointsAndTheDocumentMarkers() throws {
        let help = try CLI().run("sandbox", "--help").stdout
        #expect(!help.contains("endpoint by endpoint"))
        #expect(help.contains("document/submit"))
        for marker in DocumentMarker.allCases {
            #expect(help.contains("  \(marker.rawValue): \(marker.summary.prefix(20))"), "\(marker)")
        }
    }
}

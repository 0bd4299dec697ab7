import Foundation
import TestSupport
import Testing

/// Shell completion completes paths for file options and the values of enumerated ones;
/// --version names the C libraries.
@Suite struct CompletionTests {
    @Test func bashCompletesFilesAndEnumeratedValues() throws {
        let script = try CLI().run("--generate-completion-script", "bash").stdout
        func block(after option: String) -> String {
            let parts = script.components(separatedBy: "'\(option)')")
            return parts.count > 1 ? String(parts[1].prefix(200)) : ""
        }
        for option in ["--batch", "--database", "--pin-file", "--credentials-file"] {
            #expect(block(after: option).contains("-f"), "\(option) does not complete paths")
        }
        #expect(block(after: "--config").contains("json"))
        #expect(block(after: "--powerauth-dir").contains("-d"))
        #expect(block(after: "--log-level").contains("'warning'"))
        #expect(block(after: "--outcome").contains("'UNKNOWN'"))
        #expect(block(after: "--state").contains("'activated'"))
        #expect(block(after: "--format").contains("'jsonl'"))
    }

    @Test func theVersionNamesLibcurlAndSQLite() throws {
        let version = try CLI().run("--version")
        #expect(version.status == 0)
        #expect(version.stdout.contains("libcurl/"))
        #expect(version.stdout.contains("SQLite 3."))
    }
}

import Foundation
import TestSupport
import Testing

/// Shell completion completes paths for file options and the values of enumerated ones;
/// --version --verbose names the C libraries, and libcurl is loaded only when needed.
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
        // serve's options complete as every other command's.
        let serve = script.components(separatedBy: "_tokenctl_serve() {").last?.prefix(400) ?? ""
        #expect(serve.contains("--socket") && serve.contains("--listen") && serve.contains("--log-level"), "\(serve)")
    }

    @Test func theVerboseVersionNamesLibcurlAndSQLite() throws {
        let version = try CLI().run("--version")
        #expect(version.status == 0)
        #expect(version.stdout.split(separator: "\n").count == 1)
        let verbose = try CLI().run("--version", "--verbose")
        #expect(verbose.status == 0)
        #expect(verbose.stdout.hasPrefix(version.stdout))
        #expect(verbose.stdout.contains("libcurl/"))
        #expect(verbose.stdout.contains("SQLite 3."))
        #expect(try CLI().run("--help").stdout.contains("tokenctl --version --verbose"))
    }

    /// libcurl (and the libraries it links) is loaded only by what sends: the dynamic
    /// loader's own log says which libraries a process opened.
    @Test func libcurlIsLoadedOnlyWhenNeeded() throws {
        let cli = CLI()
        let loaderLog = ["LD_DEBUG": "libs"]
        for arguments in [["--version"], ["wallet", "list"], ["audit", "verify"]] {
            let run = try cli.run(arguments, environment: loaderLog)
            #expect(run.status == 0, "\(arguments): \(run.stderr.suffix(300))")
            #expect(run.stderr.contains("libsqlite3") || arguments == ["--version"], "the loader's log is missing")
            #expect(!run.stderr.contains("libcurl"), "\(arguments) loaded libcurl")
        }
        let verbose = try cli.run(["--version", "--verbose"], environment: loaderLog)
        #expect(verbose.stderr.contains("libcurl"), "--version --verbose did not load libcurl")
    }
}

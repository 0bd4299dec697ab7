import Foundation
import Sandbox
import TestSupport
import Testing

@Suite struct HandlerAndDemoTests {
    static let deeplinks = repositoryRoot + "/Deeplinks"

    /// Every example deeplink, through the handler script, ends as documented.
    @Test func theHandlerScriptGivesTheDocumentedExitCodes() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            #expect(try harness.cli.run("wallet", "import", Self.deeplinks + "/example-passes.csv").status == 0)
            let examples = try String(contentsOfFile: Self.deeplinks + "/example-deeplinks.txt", encoding: .utf8)
                .split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            #expect(examples.count == 8)
            for (index, example) in examples.enumerated() {
                let viaStdin = index % 2 == 1
                let result = try handler(
                    harness, arguments: viaStdin ? [] : [example[0]], stdin: viaStdin ? example[0] + "\n" : nil)
                #expect(result.status == Int32(example[2]), "\(example[0]): \(result.stderr)")
                #expect(result.outcome == example[1])
            }
            #expect(harness.sandbox.activationRequestCount == 4)
        }
    }

    @Test func theHandlerWithoutADeeplinkIsAUsageError() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            let result = try handler(harness, arguments: [], stdin: "")
            #expect(result.status == 64)
            #expect(result.stderr.contains("no deeplink given"))
        }
    }

    @Test func theDemoEndsWithEveryOutcomeAsDocumented() throws {
        let result = try CLI().run("demo")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("8 of 8 outcomes as documented"))
        #expect(result.stdout.contains("12 of 12 onboarding steps as expected"))
        #expect(result.stdout.contains("verification OTP verified: success, flags cleared"))
        #expect(result.stdout.contains("8 of 8 PIN login steps as expected"))
        #expect(result.stdout.contains("login run with a wrong PIN: login.wrongPIN"))
        #expect(result.stdout.contains("audit chain: verified"))
    }

    func handler(_ harness: ActivationHarness, arguments: [String], stdin: String?) throws -> CLIResult {
        var shell = harness.cli
        shell.environment["TOKENCTL"] = CLI.binary
        return try shell.run(executable: Self.deeplinks + "/tokenctl-handler", arguments, stdin: stdin)
    }
}

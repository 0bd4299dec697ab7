import Foundation
import Sandbox
import TestSupport
import Testing

@Suite struct BatchActivationTests {
    func lines(_ result: CLIResult) throws -> [[String: Any]] {
        try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func outputIsInInputOrderWithLineNumbersAndABadLineDoesNotStopTheRest() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            var passes = "serialNumber,deviceAccountIdentifier\n"
            for index in 0..<200 { passes += "SN\(index),DAPL\(index)\n" }
            passes += "SNDECLINE,SBXDECLINED1\n"
            _ = try harness.cli.run("wallet", "import", harness.cli.write("passes.csv", passes))
            var batch = (0..<100).map { "mybank://activate?serialNumber=SN\($0)" }
            batch += [
                "", "not a deeplink", "mybank://activate?serialNumber=SNDECLINE",
                "mybank://activate?serialNumber=SN-NONE",
            ]
            batch += (100..<200).map { "  mybank://activate?serialNumber=SN\($0)\r" }
            let file = harness.cli.write("batch.txt", batch.joined(separator: "\n") + "\n")

            let result = try harness.cli.run("activate", "--batch", file, "--json", "--concurrency", "8")
            #expect(result.status == 66, "most severe of 0, 2, 65, 66: \(result.stderr)")
            let output = try lines(result)
            #expect(output.count == 203)
            let numbers = output.compactMap { $0["line"] as? Int }
            #expect(numbers == Array(1...100) + Array(102...204))
            #expect(
                output[100]["error"].flatMap { ($0 as? [String: Any])?["code"] as? String }
                    == "deeplink.invalidCharacter")
            #expect(output[101]["outcome"] as? String == "DECLINED")
            #expect(output[102]["outcome"] as? String == "ERROR")
            #expect(output.filter { $0["outcome"] as? String == "APPROVED" }.count == 200)
            #expect(harness.sandbox.activationRequestCount == 201)
            // every line past parsing has exactly one audit entry
            #expect(try harness.auditEntries().count == 202)
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }

    @Test func theSummaryCountsOutcomesAndReadsStandardInput() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", "DAPL1")
            try harness.add("SN2", "SBXFAILED2")
            let input = [
                "mybank://activate?serialNumber=SN1", "mybank://activate?serialNumber=SN2",
                "mybank://activate?serialNumber=SN1",
            ].joined(separator: "\n")
            let result = try harness.cli.run(["activate", "--batch", "-", "--concurrency", "1"], stdin: input)
            #expect(result.status == 3)
            #expect(result.stdout == "3 lines: APPROVED 1, FAILED 1, ALREADY_ACTIVATED 1\nexit 3\n")
        }
    }

    @Test func linesForOnePassInFlightTogetherSendOneRequest() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .milliseconds(300))
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", "SBXSLOW1")
            let file = harness.cli.write(
                "batch.txt", String(repeating: "mybank://activate?serialNumber=SN1\n", count: 8))
            let result = try harness.cli.run("activate", "--batch", file, "--json", "--concurrency", "8")
            let output = try lines(result)
            #expect(output.count == 8)
            #expect(harness.sandbox.activationRequestCount == 1)
            let codes = output.compactMap { $0["exitCode"] as? Int }
            #expect(codes.filter { $0 == 0 }.count >= 1)
            #expect(codes.allSatisfy { $0 == 0 || $0 == 75 }, "\(codes)")
            #expect(try harness.auditEntries().count == 8)
        }
    }

    @Test func killedMidBatchEveryRequestTheServerReceivedIsAudited() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .milliseconds(200))
        try await withTeardown({ try await harness.stop() }) {
            var passes = "serialNumber,deviceAccountIdentifier\n"
            for index in 0..<400 { passes += "SN\(index),SBXSLOW\(index)\n" }
            _ = try harness.cli.run("wallet", "import", harness.cli.write("passes.csv", passes))
            let file = harness.cli.write(
                "batch.txt", (0..<400).map { "mybank://activate?serialNumber=SN\($0)\n" }.joined())
            let batch = try harness.cli.start(["activate", "--batch", file, "--json", "--concurrency", "8"])
            let deadline = ContinuousClock.now + .seconds(20)
            while harness.sandbox.activationRequestCount < 20 && ContinuousClock.now < deadline {
                usleep(5_000)
            }
            kill(batch.process.processIdentifier, SIGKILL)
            _ = try batch.finish()

            let received = Set(harness.sandbox.requests.compactMap { $0.header("X-Request-ID") }).count
            #expect(received >= 20)
            #expect(received < 400)
            let unaudited = try harness.unauditedRequests()
            #expect(unaudited.isEmpty, "requests the audit does not know: \(unaudited)")
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }

    @Test func theMultiTransportKeepsOrderCountsAndGuarantees() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .milliseconds(300))
        try await withTeardown({ try await harness.stop() }) {
            var passes = "serialNumber,deviceAccountIdentifier\nSNSLOW,SBXSLOW1\nSNDROP,SBXDROP1\n"
            for index in 0..<300 { passes += "SN\(index),DAPL\(index)\n" }
            _ = try harness.cli.run("wallet", "import", harness.cli.write("passes.csv", passes))
            var batch = (0..<300).map { "mybank://activate?serialNumber=SN\($0)" }
            batch.insert(contentsOf: Array(repeating: "mybank://activate?serialNumber=SNSLOW", count: 4), at: 150)
            batch.append("mybank://activate?serialNumber=SNDROP")
            let file = harness.cli.write("batch.txt", batch.joined(separator: "\n"))
            let result = try harness.cli.run("activate", "--batch", file, "--json", "--concurrency", "16")
            #expect(result.status == 75 || result.status == 69, "\(result.stderr)")
            let output = try lines(result)
            #expect(output.compactMap { $0["line"] as? Int } == Array(1...305))
            #expect(output.filter { $0["outcome"] as? String == "APPROVED" }.count >= 301)
            #expect(
                output.last?["errorCode"] == nil
                    && (output.last?["error"] as? [String: Any])?["code"] as? String == "tmp.connectionLost")
            let ids = harness.sandbox.requests.filter { $0.path.hasSuffix("/activations") }.compactMap {
                $0.header("X-Request-ID")
            }
            let repeated = Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }
            #expect(repeated.isEmpty, "requests sent twice by libcurl: \(repeated.count)")
            #expect(harness.sandbox.activationRequestCount == 302)
            #expect(try harness.auditEntries().count == 305)
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }

    @Test func aMissingBatchFileExits65() throws {
        let result = try CLI().run("activate", "--batch", "/nonexistent/batch.txt", "--json")
        #expect(result.status == 65)
        #expect(result.errorCode == "activation.batchUnreadable")
    }

    @Test func aDeeplinkAndABatchTogetherIsAUsageError() throws {
        #expect(try CLI().run("activate", "mybank://activate?serialNumber=SN1", "--batch", "x").status == 64)
        #expect(try CLI().run("activate").status == 64)
    }

    /// A batch the user gate refuses names the way out, as a single activation does.
    @Test func aBatchRefusedByTheGateNamesTheNextStep() throws {
        let cli = CLI()
        #expect(try cli.run("wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL0001").status == 0)
        let result = try cli.run(
            ["activate", "--batch", "-"], stdin: "mybank://activate?serialNumber=SN1\n",
            environment: ["TOKENCTL_ONBOARDING_REQUIRE_FINISHED_USER_ACTIVATION": "true"]
        )
        #expect(result.status == 77)
        let summary = result.stdout + result.stderr
        #expect(summary.contains("errors: user.activationRequired 1"), "\(summary)")
        #expect(
            summary.contains(
                "next (user.activationRequired): run `tokenctl onboarding start --credentials JSON`, then `tokenctl onboarding activate --otp CODE`"
            ), "\(summary)")
    }
}

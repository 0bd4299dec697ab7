import Foundation
import Sandbox
import TestSupport
import Testing

@Suite struct ActivationConcurrencyTests {
    @Test func eightProcessesOnDifferentPassesAreAllAudited() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            for index in 0..<8 { try harness.add("SN\(index)", "DAPL\(index)") }
            let running = try (0..<8).map {
                try harness.cli.start(["activate", "mybank://activate?serialNumber=SN\($0)"])
            }
            for result in try running.map({ try $0.finish() }) {
                #expect(result.status == 0, "\(result.stderr)")
                #expect(!result.stderr.contains("locked"))
            }
            #expect(harness.sandbox.activationRequestCount == 8)
            #expect(try harness.auditEntries().filter { $0["outcome"] as? String == "APPROVED" }.count == 8)
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }

    @Test func eightProcessesOnOnePassSendExactlyOneRequest() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .milliseconds(500))
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", "SBXSLOW0001")
            let running = try (0..<8).map { _ in
                try harness.cli.start(["activate", "mybank://activate?serialNumber=SN1", "--json"])
            }
            let results = try running.map { try $0.finish() }
            #expect(harness.sandbox.activationRequestCount == 1)
            let statuses = results.map(\.status).sorted()
            #expect(statuses.filter { $0 == 0 }.count >= 1, "\(statuses)")
            #expect(statuses.allSatisfy { $0 == 0 || $0 == 75 }, "\(statuses)")
            #expect(results.filter { $0.status == 75 }.allSatisfy { $0.errorCode == "activation.inProgress" })
            #expect(try harness.auditEntries().count == 8)
        }
    }

    @Test func aKilledProcessLeavesItsStartedEntryAndTheNextRunClosesIt() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .seconds(30))
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", "SBXSLOW0001")
            let victim = try harness.cli.start(
                ["activate", "mybank://activate?serialNumber=SN1"], environment: ["TOKENCTL_TMP_TIMEOUT_MS": "60000"])
            // Poll without yielding: other tests block the cooperative threads while their
            // processes run, and an awaiting poller could wake only after the answer came.
            let deadline = ContinuousClock.now + .seconds(20)
            while harness.sandbox.activationRequestCount == 0 && ContinuousClock.now < deadline {
                usleep(10_000)
            }
            try #require(harness.sandbox.activationRequestCount == 1)
            kill(victim.process.processIdentifier, SIGKILL)
            _ = try victim.finish()

            let open = try harness.auditEntries()
            #expect(open.count == 1)
            #expect(open.first?["outcome"] is NSNull)
            #expect(try harness.state("SN1") == ["activating"])

            // The sandbox holds the request; 2 s is long enough for it to arrive on a busy machine
            // (200 ms could end before the connection was accepted, and nothing was sent).
            let next = try harness.activate("SN1", environment: ["TOKENCTL_TMP_TIMEOUT_MS": "2000"])
            #expect(next.stderr.contains("activation.interrupted"))
            let entries = try harness.auditEntries()
            #expect(entries.first?["outcome"] as? String == "UNKNOWN")
            #expect(entries.first?["errorCode"] as? String == "activation.interrupted")
            #expect(entries.count == 2)
            #expect(harness.sandbox.activationRequestCount == 2)
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }
}

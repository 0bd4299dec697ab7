import Foundation
import Sandbox
import TestSupport
import Testing

/// Several hosts on one PostgreSQL database: separate `tokenctl` processes with distinct
/// `--host-id`s, sharing the wallet and the audit.
@Suite struct MultiHostTests {
    /// Four hosts each run a batch of the same deeplinks, in different orders, at once.
    @Test func fourHostsSendEachPassExactlyOnceAndAuditEveryRequest() async throws {
        let harness = try await ActivationHarness.start(backend: .postgres)
        try await withTeardown({ try await harness.stop() }) {
            let serials = (0..<120).map { "H\($0)" }
            let rows = serials.map { "\($0),D\($0)\n" }.joined()
            #expect(
                try harness.cli.run(
                    "wallet", "import", harness.cli.write("w.csv", "serialNumber,deviceAccountIdentifier\n" + rows)
                ).status == 0)

            var generator = SeededGenerator(seed: SeededGenerator.seed(from: "TOKENCTL_MULTIHOST_SEED"))
            let hosts = try (1...4).map { host in
                let lines = serials.shuffled(using: &generator).map { "mybank://activate?serialNumber=\($0)\n" }
                    .joined()
                let file = harness.cli.write("host\(host).txt", lines)
                return try harness.cli.start([
                    "--host-id", "host-\(host)", "activate", "--batch", file, "--concurrency", "4", "--json",
                ])
            }
            var outcomes: [String: Int] = [:]
            for host in hosts {
                let result = try host.finish()
                #expect([0, 75].contains(result.status), "\(result.stderr.suffix(400))")
                for line in result.stdout.split(separator: "\n") {
                    let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
                    let key =
                        (object["outcome"] as? String ?? "?") + "/"
                        + ((object["error"] as? [String: Any])?["code"] as? String ?? "-")
                    outcomes[key, default: 0] += 1
                }
            }
            #expect(outcomes.values.reduce(0, +) == 480, "\(outcomes)")
            #expect(outcomes["APPROVED/-"] == 120, "\(outcomes)")

            // The sandbox's own count: one request per pass.
            let requestsPerToken = Dictionary(harness.sandbox.activatedReferences.map { ($0, 1) }, uniquingKeysWith: +)
            #expect(requestsPerToken.count == 120)
            #expect(requestsPerToken.values.allSatisfy { $0 == 1 }, "\(requestsPerToken.filter { $0.value != 1 })")
            #expect(try harness.unauditedRequests().isEmpty)
            let verified = try harness.cli.run("audit", "verify")
            #expect(verified.status == 0, "\(verified.stderr)")
            let activated = try #require(
                try harness.cli.run("wallet", "list", "--state", "activated", "--json").json() as? [Any])
            #expect(activated.count == 120)
        }
    }

    /// A host killed mid-request holds its attempt until its lease expires; then another host
    /// closes it as UNKNOWN and sends again.
    @Test func aDeadHostsAttemptIsClosedByAnotherHostOnceItsLeaseExpires() async throws {
        var harness = try await ActivationHarness.start(slowDelay: .seconds(2), backend: .postgres)
        harness.cli.environment["TOKENCTL_DATABASE_LEASE_MS"] = "1500"
        harness.cli.environment["TOKENCTL_TMP_TIMEOUT_MS"] = "10000"
        let sandbox = harness.sandbox
        try await withTeardown({ try await sandbox.shutdown() }) {
            try harness.add("L1", "SBXSLOW")

            let first = try harness.cli.start([
                "--host-id", "host-a", "activate", "mybank://activate?serialNumber=L1", "--json",
            ])
            harness.waitForRequests(1)
            kill(first.process.processIdentifier, SIGKILL)
            first.process.waitUntilExit()
            let killedAt = ContinuousClock.now

            // Another host cannot tell a dead host from a slow one: the lease still holds. (On a
            // loaded machine this activation may start only once the lease has expired: then it
            // is the one that closes the attempt and sends again.)
            let early = try harness.activate("L1", ["--host-id", "host-b"])
            if ContinuousClock.now - killedAt < .milliseconds(1400) {
                #expect(early.errorCode == "activation.inProgress", "\(early.stdout)")
                #expect(harness.sandbox.activationRequestCount == 1)
            }

            var late = early
            if early.errorCode == "activation.inProgress" {
                let waited = killedAt + .milliseconds(1600) - ContinuousClock.now
                if waited > .zero {
                    usleep(
                        UInt32(waited.components.attoseconds / 1_000_000_000_000) + UInt32(waited.components.seconds)
                            * 1_000_000)
                }
                late = try harness.activate("L1", ["--host-id", "host-b"])
            }
            #expect(late.outcome == "APPROVED", "\(late.stdout) \(late.stderr)")
            #expect(late.stderr.contains("activation.interrupted"), "\(late.stderr)")
            #expect(harness.sandbox.activationRequestCount == 2)
            let entries = try harness.auditEntries()
            #expect(entries.first?["outcome"] as? String == "UNKNOWN")
            #expect(entries.first?["errorCode"] as? String == "activation.interrupted")
            #expect(entries.last?["outcome"] as? String == "APPROVED")
            #expect(try harness.unauditedRequests().isEmpty)
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }
}

import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// The fleet through a PostgreSQL failover (DESIGN §10), on a primary and a synchronous
/// standby of the test's own: keyed clients activate through two services (different host
/// ids) while the primary is SIGKILLed and the standby promoted 2 s later, on a URL naming
/// both hosts and on one address behind a proxy switched at the promotion. Every pass is
/// answered, none is POSTed twice, every POST is audited on the new primary and matches its
/// answer, no attempt stays open, both services are ready again without a restart. A CLI
/// batch rides the same failover; an asynchronous standby that lost rows is caught by the log.
@Suite(.serialized) struct FailoverTests {
    enum Topology: String, CaseIterable, CustomStringConvertible {
        case multiHostURL = "multi-host URL"
        case switchedProxy = "proxy switched at the promotion"
        var description: String { rawValue }
    }

    /// One answer a client got.
    struct Answer: Sendable {
        let service: Int
        let serial: String
        let status: Int
        let code: String?
        let detail: String?
        let requestID: String?
        let outcome: String?
        let sent: ContinuousClock.Instant
        let answered: ContinuousClock.Instant
    }

    /// 4 clients of 8 passes; FAILOVER_CLIENTS and FAILOVER_PASSES_PER_CLIENT measure a larger run.
    static let clients = Int(ProcessInfo.processInfo.environment["FAILOVER_CLIENTS"] ?? "") ?? 4
    static let passesPerClient = Int(ProcessInfo.processInfo.environment["FAILOVER_PASSES_PER_CLIENT"] ?? "") ?? 8

    @Test(arguments: Topology.allCases)
    func keyedClientsRideAPromotionThroughTwoServices(_ topology: Topology) async throws {
        let fleet = try Fleet.start("failover")
        defer { fleet.remove() }
        let proxy = topology == .switchedProxy ? try SwitchingProxy(forwardingTo: fleet.primaryPort) : nil
        defer { proxy?.stop() }
        var harness = try await ActivationHarness.start()
        let sandbox = harness.sandbox
        try await withTeardown({ try await sandbox.shutdown() }) {
            try Self.migrate(&harness, url: proxy.map { fleet.url(hosts: [$0.port]) } ?? fleet.url())
            let serials = (0..<Self.clients * Self.passesPerClient).map { String(format: "SNFO%03d", $0) }
            let csv = serials.map { "\($0),DAPLFO\($0.dropFirst(4))000000" }.joined(separator: "\n")
            try Self.importPasses(harness, csv)
            let services = try (0..<2).map { index in
                try ServiceHarness.launch(
                    harness, socket: harness.cli.directory.file("s\(index)/tokenctl.sock"),
                    environment: ["TOKENCTL_DATABASE_HOST_ID": "fleet-\(index)"])
            }
            defer { for service in services { _ = try? service.stop() } }
            let answers = Mutex<[Answer]>([])
            let cli = harness.cli
            let sockets = services.map(\.socket)
            // Each client activates its passes one after the other, with a key each, and
            // repeats a request until it has a final answer, each try on the other service.
            let clients = (0..<Self.clients).map { client in
                Background {
                    var unanswered: [String] = []
                    for pass in 0..<Self.passesPerClient {
                        let serial = serials[client * Self.passesPerClient + pass]
                        var service = (client + pass) % 2
                        var final = false
                        let giveUp = ContinuousClock.now + .seconds(120)
                        while !final && ContinuousClock.now < giveUp {
                            let sent = ContinuousClock.now
                            let answer = try ServiceHarness.curl(
                                cli: cli, socket: sockets[service], "POST", "http://localhost/v1/activations",
                                body: #"{"deeplink": "mybank://activate?serialNumber=\#(serial)"}"#,
                                headers: ["Idempotency-Key: key-\(serial)"])
                            let object = (try? answer.object()) ?? [:]
                            let result = object["result"] as? [String: Any] ?? object
                            answers.withLock {
                                $0.append(
                                    Answer(
                                        service: service, serial: serial, status: answer.status,
                                        code: object["code"] as? String, detail: object["detail"] as? String,
                                        requestID: result["requestId"] as? String,
                                        outcome: result["outcome"] as? String, sent: sent, answered: .now))
                            }
                            final = answer.status == 200
                            if !final {
                                service = 1 - service
                                usleep(100_000)
                            }
                        }
                        if !final { unanswered.append(serial) }
                    }
                    return unanswered
                }
            }
            // The primary dies a third of the way through, and the standby is promoted 2 s later.
            let third = serials.count / 3
            while sandbox.activationRequestCount < third { usleep(5_000) }
            let killed = ContinuousClock.now
            try fleet.killPrimary()
            try await Task.sleep(for: .seconds(2))
            try fleet.promote()
            proxy?.switchTo(fleet.standbyPort)
            let promoted = ContinuousClock.now
            let unanswered = try clients.flatMap { try $0.join() }

            // Every pass answered 200 APPROVED; none POSTed twice, on the sandbox's own count.
            #expect(unanswered.isEmpty, "never answered: \(unanswered)")
            let references = sandbox.activatedReferences
            #expect(references.count == serials.count, "\(references.count) POSTs for \(serials.count) passes")
            #expect(Set(references).count == references.count, "a pass was POSTed twice")
            // Every POST audited on the new primary, each answer matching its audit entry.
            let entries = try harness.auditEntries()
            let audited = Dictionary(
                entries.compactMap { entry in (entry["requestId"] as? String).map { ($0, entry) } },
                uniquingKeysWith: { first, _ in first })
            #expect(try harness.unauditedRequests().isEmpty)
            let finals = answers.withLock { $0 }.filter { $0.status == 200 }
            for answer in finals {
                let entry = answer.requestID.flatMap { audited[$0] }
                #expect(
                    entry?["outcome"] as? String == answer.outcome && answer.outcome == "APPROVED",
                    "\(answer.serial): answered \(answer.outcome ?? "-"), audited \(entry?["outcome"] ?? "nothing")")
            }
            #expect(Set(finals.map(\.serial)) == Set(serials))
            // Every answer within the request's window (database.reconnect-window-ms, 30 s).
            let slowest = answers.withLock { $0 }.map { $0.answered - $0.sent }.max() ?? .zero
            #expect(slowest < .seconds(33), "an answer took \(slowest)")

            // Both services ready again, without a restart.
            for service in services {
                var ready = try service.request("GET", "/readyz")
                let deadline = ContinuousClock.now + .seconds(10)
                while ready.status != 200 && ContinuousClock.now < deadline {
                    usleep(100_000)
                    ready = try service.request("GET", "/readyz")
                }
                #expect(ready.status == 200, "\(ready.body)")
                // The metrics count the reconnections and, on the URL naming both hosts, the change.
                let metrics = try service.request("GET", "/metrics").body
                let reconnected = Self.metric(metrics, #"tokenctl_database_reconnects_total{result="ok"}"#)
                #expect(reconnected >= 1, "\(metrics)")
                let changes = Self.metric(metrics, "tokenctl_database_primary_changes_total")
                #expect(changes == (topology == .multiHostURL ? 1 : 0), "\(metrics)")
            }
            // A clean stop leaves no attempt open and no pass activating.
            for service in services {
                let stopped = try service.stop()
                #expect(stopped.status == 0)
                let slow = answers.withLock { $0 }.contains { $0.answered - $0.sent > .seconds(10) }
                if slow || ProcessInfo.processInfo.environment["FAILOVER_LOGS"] != nil {
                    // What a slow answer met, for the run's record.
                    print(
                        stopped.stderr.split(separator: "\n").filter { $0.contains("database.") }.joined(
                            separator: "\n"))
                }
            }
            #expect(entries.allSatisfy { $0["outcome"] is String }, "an attempt is open")
            let listed = try #require(try harness.cli.run("wallet", "list", "--json").json() as? [[String: Any]])
            #expect(listed.allSatisfy { $0["state"] as? String == "activated" }, "\(listed.map { $0["state"] ?? "" })")
            #expect(try harness.cli.run("audit", "verify").status == 0)

            Self.report(topology, answers.withLock { $0 }, killed: killed, promoted: promoted)
        }
    }

    /// Points the harness at the fleet's `url` and migrates the schema there.
    static func migrate(_ harness: inout ActivationHarness, url: String) throws {
        harness.cli.environment["TOKENCTL_DATABASE_URL"] = url
        harness.cli.environment["TOKENCTL_DATABASE_PASSWORD"] = TestPostgres.password
        try #require(try harness.cli.run("db", "migrate").status == 0)
    }

    /// Imports `csv` (`serialNumber,deviceAccountIdentifier` lines, no header).
    static func importPasses(_ harness: ActivationHarness, _ csv: String) throws {
        let file = harness.cli.write("passes.csv", "serialNumber,deviceAccountIdentifier\n" + csv + "\n")
        try #require(try harness.cli.run("wallet", "import", file).status == 0)
    }

    /// The value of one sample of the exposition text (0 when absent).
    static func metric(_ exposition: String, _ sample: String) -> Double {
        exposition.split(separator: "\n").first { $0.hasPrefix(sample + " ") }
            .flatMap { Double($0.dropFirst(sample.count + 1)) } ?? 0
    }

    /// The figures of one run, for the operations guide: from the promotion to each
    /// service's first 200, the answers during the switch by status and code, the longest.
    static func report(
        _ topology: Topology, _ answers: [Answer], killed: ContinuousClock.Instant,
        promoted: ContinuousClock.Instant
    ) {
        func milliseconds(_ duration: Duration) -> Int {
            Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        }
        var lines = ["failover figures (\(topology)), \(answers.count) answers:"]
        for service in 0..<2 {
            let first = answers.filter { $0.service == service && $0.status == 200 && $0.sent >= promoted }
                .map(\.answered).min()
            lines.append(
                "  service \(service): first 200 sent after the promotion came \(first.map { "\(milliseconds($0 - promoted)) ms" } ?? "never") after it"
            )
        }
        let during = answers.filter { $0.answered >= killed && $0.sent <= promoted + .seconds(5) }
        let counted = Dictionary(grouping: during, by: { "\($0.status) \($0.code ?? "")" }).mapValues(\.count)
        for (kind, count) in counted.sorted(by: { $0.key < $1.key }) {
            lines.append("  during the switch: \(kind) ×\(count)")
        }
        for detail in Set(answers.compactMap(\.detail)).sorted() { lines.append("  detail: \(detail)") }
        if let longest = answers.max(by: { $0.answered - $0.sent < $1.answered - $1.sent }) {
            lines.append(
                "  longest answer: \(milliseconds(longest.answered - longest.sent)) ms (\(longest.status) \(longest.code ?? ""))"
            )
        }
        print(lines.joined(separator: "\n"))
    }

    /// A CLI batch through the same failover: every line answered, none POSTed twice, every
    /// POST audited on the new primary.
    @Test func aCLIBatchRidesAPromotion() async throws {
        let fleet = try Fleet.start("failover-batch")
        defer { fleet.remove() }
        var harness = try await ActivationHarness.start(slowDelay: .milliseconds(100))
        let sandbox = harness.sandbox
        try await withTeardown({ try await sandbox.shutdown() }) {
            try Self.migrate(&harness, url: fleet.url())
            let serials = (0..<120).map { String(format: "SNFB%03d", $0) }
            // Each TMP answer takes 100 ms: the batch runs for some seconds.
            let csv = serials.map { "\($0),SBXSLOWFB\($0.dropFirst(4))" }.joined(separator: "\n")
            try Self.importPasses(harness, csv)
            let lines = serials.map { "mybank://activate?serialNumber=\($0)" }.joined(separator: "\n") + "\n"
            let batch = try harness.cli.start(
                ["activate", "--batch", harness.cli.write("batch.txt", lines), "--concurrency", "4", "--json"])
            while sandbox.activationRequestCount < 20 { usleep(5_000) }
            try fleet.killPrimary()
            try await Task.sleep(for: .seconds(2))
            try fleet.promote()
            let result = try batch.finish()
            let objects = result.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(objects.count == serials.count, "\(objects.count) lines answered: \(result.stderr.suffix(2000))")
            let approved = objects.filter { $0["outcome"] as? String == "APPROVED" }
            let references = sandbox.activatedReferences
            #expect(Set(references).count == references.count, "a pass was POSTed twice")
            #expect(approved.count == references.count, "\(approved.count) approved, \(references.count) POSTed")
            // A line that could not be finished names its storage code; nothing else failed.
            for object in objects where object["outcome"] as? String != "APPROVED" {
                #expect((object["code"] as? String)?.hasPrefix("storage.") == true, "\(object)")
            }
            #expect(try harness.unauditedRequests().isEmpty)
            // No attempt open, no pass left activating.
            #expect(try harness.auditEntries().allSatisfy { $0["outcome"] is String }, "an attempt is open")
            let listed = try #require(try harness.cli.run("wallet", "list", "--json").json() as? [[String: Any]])
            #expect(!listed.contains { $0["state"] as? String == "activating" })
            #expect(try harness.cli.run("audit", "verify").status == 0)
            print(
                "failover figures (CLI batch): \(approved.count) of \(objects.count) lines APPROVED, exit \(result.status)"
            )
        }
    }

    /// An asynchronous standby that did not receive the last rows is promoted: the service
    /// that signed a checkpoint of them signs none below it, `/readyz` names `audit`, it logs
    /// `audit.logCut`, and `audit verify` of the kept checkpoint exits 65 naming both sizes.
    @Test func anAsynchronousStandbyThatLostRowsIsCaughtByTheLog() async throws {
        let fleet = try Fleet.start("failover-async", asynchronous: true)
        defer { fleet.remove() }
        var (harness, verifierKey) = try await AuditLogTests.start(.sqlite)
        let sandbox = harness.sandbox
        try await withTeardown({ try await sandbox.shutdown() }) {
            try Self.migrate(&harness, url: fleet.url())
            for number in 1...6 { try harness.add("SNAS\(number)", "DAPLAS\(number)00000") }
            let service = try ServiceHarness.launch(
                harness, environment: ["TOKENCTL_AUDIT_CHECKPOINT_INTERVAL_SECONDS": "1"])
            defer { _ = try? service.stop() }
            func signed(_ rows: Int) async throws -> String {
                for _ in 0..<100 {
                    let answer = try service.request("GET", "/v1/audit/checkpoint")
                    if answer.status == 200, answer.body.hasPrefix("\(AuditLogTests.origin)\n\(rows)\n") {
                        return answer.body
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
                Issue.record("the service signed no checkpoint of \(rows) rows")
                return ""
            }
            for number in 1...3 { #expect(try service.activate("SNAS\(number)").status == 200) }
            _ = try await signed(6)
            // The standby has every row so far, then stops receiving.
            let rows = "SELECT count(*) FROM audit_row"
            for _ in 0..<100 where try fleet.psql(port: fleet.standbyPort, rows) != "6" {
                try await Task.sleep(for: .milliseconds(100))
            }
            try fleet.detachStandby()
            for number in 4...6 { #expect(try service.activate("SNAS\(number)").status == 200) }
            // An auditor keeps the checkpoint the service signed of all 12 rows.
            let kept = harness.cli.write("kept.checkpoint", try await signed(12))
            let checkpoints = "SELECT count(*) FROM audit_checkpoint"
            let before = try fleet.psql(port: fleet.standbyPort, checkpoints)

            try fleet.killPrimary()
            try fleet.promote()
            #expect(try fleet.psql(port: fleet.standbyPort, rows) == "6")
            var ready = try service.request("GET", "/readyz")
            let deadline = ContinuousClock.now + .seconds(20)
            while !ready.body.contains("\"audit\"") && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                ready = try service.request("GET", "/readyz")
            }
            #expect(ready.status == 503 && ready.body.contains("audit.inconsistent"), "\(ready.body)")
            // Intervals pass: no checkpoint is signed on the cut log.
            try await Task.sleep(for: .seconds(2))
            #expect(try fleet.psql(port: fleet.standbyPort, checkpoints) == before)
            let verified = try harness.cli.run("audit", "verify", "--checkpoint", kept, "--verifier-key", verifierKey)
            #expect(verified.status == 65, "\(verified.stderr)")
            #expect(
                verified.stderr.contains("audit.inconsistent") && verified.stderr.contains("12")
                    && verified.stderr.contains("6"), "\(verified.stderr)")
            let stopped = try service.stop()
            #expect(stopped.stderr.contains("audit.logCut"), "\(stopped.stderr.suffix(3000))")
        }
    }

    /// A primary that vanishes without a reset (behind a proxy gone silent): a request is
    /// answered `storage.*` within its window, nothing sent, and the service serves again
    /// once the address answers, without a restart.
    @Test func aPrimaryThatGoesSilentHoldsNoRequestPastItsWindow() async throws {
        let fleet = try Fleet.start("failover-silent")
        defer { fleet.remove() }
        let proxy = try SwitchingProxy(forwardingTo: fleet.primaryPort)
        defer { proxy.stop() }
        var harness = try await ActivationHarness.start()
        let sandbox = harness.sandbox
        try await withTeardown({ try await sandbox.shutdown() }) {
            try Self.migrate(&harness, url: fleet.url(hosts: [proxy.port]))
            for number in 1...2 { try harness.add("SNSI\(number)", "DAPLSI\(number)0000000") }
            let service = try ServiceHarness.launch(
                harness, environment: ["TOKENCTL_DATABASE_RECONNECT_WINDOW_MS": "3000"])
            defer { _ = try? service.stop() }
            proxy.goSilent()
            let start = ContinuousClock.now
            let held = try service.activate("SNSI1")
            let took = ContinuousClock.now - start
            // The window's end: storage.unreachable, naming the last error.
            #expect(held.status == 409, "\(held.body)")
            #expect(try held.object()["code"] as? String == "storage.unreachable", "\(held.body)")
            #expect(held.body.contains("no PostgreSQL primary answered within"), "\(held.body)")
            // The window (3 s) and one connect timeout (3 s) for the last try, not the host's silence.
            #expect(took < .seconds(10), "answered after \(took)")
            #expect(sandbox.activationRequestCount == 0)
            proxy.switchTo(fleet.primaryPort)
            var answer = try service.activate("SNSI2")
            let deadline = ContinuousClock.now + .seconds(10)
            while answer.status != 200 && ContinuousClock.now < deadline {
                usleep(200_000)
                answer = try service.activate("SNSI2")
            }
            #expect(answer.status == 200, "\(answer.body)")
            print("failover figures (silent primary, window 3000 ms): answered \(held.status) after \(took)")
        }
    }
}

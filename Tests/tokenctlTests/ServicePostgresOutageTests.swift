import Foundation
import TestSupport
import Testing

/// The service while its PostgreSQL server is down (DESIGN §8, operations.md "Failures"),
/// on a server of the test's own that is stopped and started again: every request is
/// answered within one reconnect window (30 s) of its arrival, an answer TMP gave is reported
/// and written once the server is back, and a keyed retry then replays it without sending.
@Suite struct ServicePostgresOutageTests {
    @Test func requestsAreAnsweredWithinOneWindowAndAnAnswerGivenIsWrittenOnceTheServerIsBack() async throws {
        let server = PrivateServer(directory: "/tmp/tokenctl-outage-test-\(UUID().uuidString.prefix(8))")
        let exports = try server.run("start")
        defer { _ = try? server.run("stop", "--purge") }
        var harness = try await ActivationHarness.start(slowDelay: .seconds(2))
        let sandbox = harness.sandbox
        try await withTeardown({ try await sandbox.shutdown() }) {
            let url = try #require(exports.firstMatch(of: /TOKENCTL_TEST_DATABASE_URL='([^']+)'/)?.1)
            harness.cli.environment["TOKENCTL_DATABASE_URL"] = String(url)
            harness.cli.environment["TOKENCTL_DATABASE_PASSWORD"] = TestPostgres.password
            harness.cli.environment["TOKENCTL_DATABASE_LEASE_MS"] = "60000"
            // The set-up's connections to the new server get a long connect timeout: on a
            // loaded machine 3 s did not always suffice. The service keeps the default.
            harness.cli.environment["TOKENCTL_TMP_CONNECT_TIMEOUT_MS"] = "30000"
            #expect(try harness.cli.run("db", "migrate").status == 0)
            try harness.add("SNOUT1", "SBXSLOWOUT1")
            for index in 2...4 { try harness.add("SNOUT\(index)", "DAPL0000000000OUT\(index)") }
            harness.cli.environment["TOKENCTL_TMP_CONNECT_TIMEOUT_MS"] = nil
            let service = try ServiceHarness.launch(harness)
            defer { _ = try? service.stop() }
            let socket = service.socket, cli = service.cli
            func post(_ serial: String, key: String? = nil) -> Background<(HTTPAnswer, Duration)> {
                Background {
                    let start = ContinuousClock.now
                    let answer = try ServiceHarness.curl(
                        cli: cli, socket: socket, "POST", "http://localhost/v1/activations",
                        body: #"{"deeplink": "mybank://activate?serialNumber=\#(serial)"}"#,
                        headers: key.map { ["Idempotency-Key: \($0)"] } ?? []
                    )
                    return (answer, .now - start)
                }
            }

            // A keyed request at TMP when the server goes down.
            let keyed = post("SNOUT1", key: "outage-1")
            harness.waitForRequests(1)
            _ = try server.run("stop")
            let early = ["SNOUT2", "SNOUT3"].map { post($0) }
            try await Task.sleep(for: .seconds(5))
            let late = post("SNOUT4")
            for request in early + [late] {
                let (answer, took) = try request.join()
                #expect(took < .seconds(34), "answered after \(took)")
                // storage.unreachable (75, 409) or another storage code: nothing was sent.
                #expect([409, 503].contains(answer.status), "\(answer.body)")
                #expect(try (answer.object()["code"] as? String)?.hasPrefix("storage.") == true)
            }
            // TMP answered: reported as it answered, not as "nothing was sent".
            let (first, _) = try keyed.join()
            #expect(first.status == 200, "\(first.body)")
            #expect(try first.object()["outcome"] as? String == "APPROVED")

            // The server is back: within seconds the answer is written and the pass activated
            // (the server's own start and the suite's load on two cores take some of them).
            // On the same port: the stopped server's connections, still closing, do not move it.
            let again = try server.run("start")
            #expect(again.firstMatch(of: /TOKENCTL_TEST_DATABASE_URL='([^']+)'/)?.1 == url, "\(again)")
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline, (try? harness.state("SNOUT1")) != ["activated"] {
                try await Task.sleep(for: .milliseconds(250))
            }
            let state = try harness.state("SNOUT1")
            if state != ["activated"] {
                let result = try service.stop()
                Issue.record(
                    "SNOUT1 is \(state) 30 s after the server came back; the service logged:\n\(result.stderr.suffix(6000))"
                )
                return
            }
            let retry = try service.activate("SNOUT1", headers: ["Idempotency-Key: outage-1"])
            #expect(retry.status == 200 && retry.headers["idempotent-replayed"] == "true")
            #expect(try retry.object()["outcome"] as? String == "APPROVED")
            #expect(try retry.object()["requestId"] as? String == (first.object()["requestId"] as? String))
            #expect(try service.activate("SNOUT2").status == 200)
            #expect(
                sandbox.requests.filter { String(decoding: $0.body, as: UTF8.self).contains("SBXSLOWOUT1") }.count == 1)
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }

    /// A keyed request whose claim was committed and which then ended without an answer
    /// stored (it waited for a worker while the server went down): once the server is back,
    /// its retry runs and gets the answer, once; it is never left `activation.inProgress` to
    /// a live process whose request has ended.
    @Test func aClaimWhoseRequestEndedWhileTheServerWasDownIsAnsweredByTheRetry() async throws {
        let server = PrivateServer(directory: "/tmp/tokenctl-claim-test-\(UUID().uuidString.prefix(8))")
        let exports = try server.run("start")
        defer { _ = try? server.run("stop", "--purge") }
        // TMP holds the first request long enough for the server's stop on a loaded machine.
        var harness = try await ActivationHarness.start(slowDelay: .seconds(10))
        let sandbox = harness.sandbox
        try await withTeardown({ try await sandbox.shutdown() }) {
            let url = try #require(exports.firstMatch(of: /TOKENCTL_TEST_DATABASE_URL='([^']+)'/)?.1)
            harness.cli.environment["TOKENCTL_DATABASE_URL"] = String(url)
            harness.cli.environment["TOKENCTL_DATABASE_PASSWORD"] = TestPostgres.password
            #expect(try harness.cli.run("db", "migrate").status == 0)
            try harness.add("SNCLAIM1", "SBXSLOWCLAIM1")
            try harness.add("SNCLAIM2", "DAPL000000CLAIM2")
            // One worker: the second keyed request claims its key, then waits for it.
            let service = try ServiceHarness.launch(harness, environment: ["TOKENCTL_SERVICE_MAX_IN_FLIGHT": "1"])
            defer { _ = try? service.stop() }
            let socket = service.socket, cli = service.cli
            func post(_ serial: String, key: String) -> Background<HTTPAnswer> {
                Background {
                    try ServiceHarness.curl(
                        cli: cli, socket: socket, "POST", "http://localhost/v1/activations",
                        body: #"{"deeplink": "mybank://activate?serialNumber=\#(serial)"}"#,
                        headers: ["Idempotency-Key: \(key)"]
                    )
                }
            }
            let first = post("SNCLAIM1", key: "claim-1")
            harness.waitForRequests(1)
            let second = post("SNCLAIM2", key: "claim-2")
            // Its claim committed (read with psql, an independent client), then the server stops
            // while the request still waits for the one worker.
            let claimed = "SELECT count(*) FROM idempotency_key WHERE key = 'claim-2'"
            let libpqURL = String(url).replacingOccurrences(of: "?sslmode=disable", with: "") + "?sslmode=disable"
            for _ in 0..<100 {
                let count = try runProgram(
                    "/usr/bin/psql", [libpqURL, "-tAc", claimed],
                    environment: ["PGPASSWORD": TestPostgres.password, "PATH": "/usr/bin:/bin"])
                if count.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1" { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(sandbox.requests.filter { String(decoding: $0.body, as: UTF8.self).contains("CLAIM2") }.isEmpty)
            _ = try server.run("stop")
            let (answered, waited) = (try first.join(), try second.join())
            #expect(answered.status == 200, "\(answered.body)")
            let waitedCode = try waited.object()["code"] as? String
            #expect(waited.status != 200 && waitedCode?.hasPrefix("storage.") == true, "\(waited.body)")
            #expect(sandbox.requests.filter { String(decoding: $0.body, as: UTF8.self).contains("CLAIM2") }.isEmpty)

            let again = try server.run("start")
            #expect(again.firstMatch(of: /TOKENCTL_TEST_DATABASE_URL='([^']+)'/)?.1 == url, "\(again)")
            var retry = try service.activate("SNCLAIM2", headers: ["Idempotency-Key: claim-2"])
            let deadline = ContinuousClock.now + .seconds(30)
            while retry.status != 200, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(500))
                retry = try service.activate("SNCLAIM2", headers: ["Idempotency-Key: claim-2"])
            }
            let outcome = try retry.object()["outcome"] as? String
            #expect(retry.status == 200 && outcome == "APPROVED", "\(retry.body)")
            let replayed = try service.activate("SNCLAIM2", headers: ["Idempotency-Key: claim-2"])
            #expect(replayed.status == 200 && replayed.headers["idempotent-replayed"] == "true", "\(replayed.body)")
            #expect(sandbox.requests.filter { String(decoding: $0.body, as: UTF8.self).contains("CLAIM2") }.count == 1)
        }
    }
}

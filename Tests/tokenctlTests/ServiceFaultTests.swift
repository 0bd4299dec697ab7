import Foundation
import Sandbox
import TestSupport
import Testing

/// The service under faults, through the real binaries (DESIGN §8): a keyed retry after a
/// SIGKILL or a lost answer sends nothing again, and what a killed service left open is
/// closed when it starts again.
@Suite struct ServiceFaultTests {
    /// Runs `sql` on the harness's database (the SQLite file or the PostgreSQL database).
    static func sql(_ harness: ActivationHarness, _ statement: String) throws {
        if let postgres = harness.postgres {
            let result = try postgres.psql(statement)
            try #require(result.status == 0, "\(result.output)")
        } else {
            let result = try harness.cli.run(executable: "/usr/bin/sqlite3", [harness.cli.databasePath, statement])
            try #require(result.status == 0, "\(result.stderr)")
        }
    }

    @Test(arguments: Backend.allCases)
    func aKilledServiceClosesItsOpenAttemptsAtStartAndAKeyedRetryAnswersThemWithoutSending(
        backend: Backend
    ) async throws {
        let passes = (1...4).map { ("SN71000\($0)", "SBXSLOW000\($0)") }
        let service = try await ServiceHarness.start(backend: backend, slowDelay: .seconds(3), passes: passes)
        try await withTeardown({ try await service.shutdown() }) {
            let socket = service.socket, cli = service.cli
            let inFlight = passes.map { serial, _ in
                Background {
                    // The connection dies with the service: curl's own status, not an answer.
                    try cli.run(
                        executable: "/usr/bin/curl",
                        [
                            "-s", "--unix-socket", socket, "-H", "Content-Type: application/json", "-H",
                            "Idempotency-Key: kill-\(serial)",
                            "--data-binary", #"{"deeplink": "mybank://activate?serialNumber=\#(serial)"}"#,
                            "http://localhost/v1/activations",
                        ]
                    ).status
                }
            }
            service.activation.waitForRequests(4)
            _ = try service.stop(SIGKILL)
            for request in inFlight { #expect(try request.join() != 0) }

            // At start, before any request: all four closed as UNKNOWN, the passes usable again.
            let restarted = try ServiceHarness.launch(service.activation)
            defer { _ = try? restarted.stop() }
            let entries = try service.activation.auditEntries()
            #expect(entries.count == 4)
            for entry in entries {
                #expect(entry["outcome"] as? String == "UNKNOWN")
                #expect(entry["errorCode"] as? String == "activation.interrupted")
            }
            for (serial, _) in passes { #expect(try service.activation.state(serial) == ["requiresActivation"]) }

            // The clients retry with their keys: each gets its attempt's closed result, replayed.
            for (serial, _) in passes {
                let retry = try restarted.request(
                    "POST", "/v1/activations", body: #"{"deeplink": "mybank://activate?serialNumber=\#(serial)"}"#,
                    headers: ["Idempotency-Key: kill-\(serial)"]
                )
                #expect(retry.status == 502)
                #expect(retry.headers["idempotent-replayed"] == "true")
                let result = try #require(try retry.object()["result"] as? [String: Any])
                #expect(result["outcome"] as? String == "UNKNOWN" && result["exitCode"] as? Int == 69)
                #expect(try retry.object()["code"] as? String == "activation.interrupted")
                // The same answer again, now stored with the key.
                let again = try restarted.request(
                    "POST", "/v1/activations", body: #"{"deeplink": "mybank://activate?serialNumber=\#(serial)"}"#,
                    headers: ["Idempotency-Key: kill-\(serial)"]
                )
                #expect(again.status == 502 && again.body == retry.body)
            }
            // Past the slow delay: nothing more reached TMP, each pass was POSTed once.
            try await Task.sleep(for: .seconds(3.5))
            let sent = service.sandbox.activatedReferences
            #expect(sent.count == 4 && Set(sent).count == 4)
            #expect(try service.activation.auditEntries().count == 4)
        }
    }

    /// Exactly once under faults: keyed clients retry through repeated SIGKILLs of the
    /// service; the sandbox counts what reached TMP.
    @Test(arguments: Backend.allCases)
    func keyedClientsRetryingThroughRepeatedKillsSendEachPassAtMostOnce(backend: Backend) async throws {
        let passes = (1...48).map { index -> (String, String) in
            let number = String(format: "%05d", index)
            switch index % 4 {
            case 0: return ("SN79\(number)", "SBXDECLINED\(number)")
            case 1: return ("SN79\(number)", "DAPL000000079\(number)")
            default: return ("SN79\(number)", "SBXSLOW\(number)")
            }
        }
        let first = try await ServiceHarness.start(backend: backend, slowDelay: .milliseconds(300), passes: passes)
        try await withTeardown({ try await first.activation.stop() }) {
            let socket = first.socket, cli = first.cli
            let clients = (0..<8).map { client in
                Background { () throws -> [String: Int] in
                    var answers: [String: Int] = [:]
                    for (serial, _) in passes[(client * 6)..<(client * 6 + 6)] {
                        let deadline = ContinuousClock.now + .seconds(120)
                        while ContinuousClock.now < deadline {
                            let sent = try cli.run(
                                executable: "/usr/bin/curl",
                                [
                                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "20", "--unix-socket",
                                    socket,
                                    "-H", "Content-Type: application/json", "-H",
                                    "Idempotency-Key: exactly-once-\(serial)",
                                    "--data-binary", #"{"deeplink": "mybank://activate?serialNumber=\#(serial)"}"#,
                                    "http://localhost/v1/activations",
                                ])
                            let status = Int(sent.stdout) ?? 0
                            // A lost connection, a refused one while the service restarts, 409 while
                            // the first request runs, 503: the client repeats with its key.
                            if sent.status == 0 && ![0, 409, 503].contains(status) {
                                answers[serial] = status
                                break
                            }
                            usleep(50_000)
                        }
                    }
                    return answers
                }
            }
            var service = first
            for _ in 0..<8 {
                // Each kill comes while a request is at TMP: one has arrived there since the start.
                let sent = first.sandbox.activationRequestCount
                let deadline = ContinuousClock.now + .seconds(5)
                while first.sandbox.activationRequestCount == sent && ContinuousClock.now < deadline { usleep(10_000) }
                usleep(100_000)
                _ = try service.stop(SIGKILL)
                service = try ServiceHarness.launch(first.activation, socket: socket)
            }
            var answered: [String: Int] = [:]
            for client in clients { answered.merge(try client.join()) { $1 } }
            _ = try service.stop()

            #expect(
                answered.count == passes.count,
                "unanswered: \(Set(passes.map(\.0)).subtracting(answered.keys).sorted())")
            let sent = first.sandbox.activatedReferences
            let counts = Dictionary(sent.map { ($0, 1) }, uniquingKeysWith: +)
            #expect(counts.filter { $0.value > 1 }.isEmpty, "sent more than once: \(counts.filter { $0.value > 1 })")
            // Every attempt is closed: finished, or closed as interrupted.
            let entries = try first.activation.auditEntries()
            #expect(
                entries.allSatisfy { $0["outcome"] is String },
                "open attempts: \(entries.filter { !($0["outcome"] is String) })")
            #expect(entries.count >= counts.count)
            // The kills came while requests were at TMP: those attempts were closed as interrupted
            // and their clients answered with that, not sent again.
            let interrupted = entries.filter { $0["errorCode"] as? String == "activation.interrupted" }.count
            #expect(interrupted > 0)
            #expect(answered.values.filter { $0 == 502 }.count >= interrupted)
        }
    }

    /// On PostgreSQL another host's attempt is closed once its lease expires, by a service
    /// that keeps serving (no restart needed).
    @Test func aServingHostClosesADeadHostsAttemptOnceItsLeaseExpires() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .seconds(3), backend: .postgres)
        try await withTeardown({ try await harness.stop() }) {
            var activation = harness
            activation.cli.environment["TOKENCTL_DATABASE_LEASE_MS"] = "1000"
            try activation.add("SN715001", "SBXSLOW715001")
            let dying = try ServiceHarness.launch(
                activation, socket: activation.cli.directory.file("a/a.sock"), arguments: ["--host-id", "host-a"])
            let serving = try ServiceHarness.launch(
                activation, socket: activation.cli.directory.file("b/b.sock"), arguments: ["--host-id", "host-b"])
            defer { _ = try? serving.stop() }
            let socket = dying.socket, cli = dying.cli
            let request = Background {
                try cli.run(
                    executable: "/usr/bin/curl",
                    [
                        "-s", "--unix-socket", socket, "-H", "Content-Type: application/json",
                        "--data-binary", #"{"deeplink": "mybank://activate?serialNumber=SN715001"}"#,
                        "http://localhost/v1/activations",
                    ]
                ).status
            }
            activation.waitForRequests(1)
            _ = try dying.stop(SIGKILL)
            _ = try request.join()
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline, try activation.state("SN715001") != ["requiresActivation"] {
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(try activation.state("SN715001") == ["requiresActivation"])
            let entries = try activation.auditEntries()
            #expect(entries.count == 1 && entries[0]["errorCode"] as? String == "activation.interrupted")
        }
    }

    @Test(arguments: Backend.allCases)
    func aKeyedRetryWhoseAnswerWasLostAnswersTheAuditedOutcomeWithoutSending(backend: Backend) async throws {
        let service = try await ServiceHarness.start(backend: backend, passes: [("SN720001", "SBXDECLINED0001")])
        try await withTeardown({ try await service.shutdown() }) {
            let first = try service.activate("SN720001", headers: ["Idempotency-Key: lost-1"])
            #expect(first.status == 200)
            #expect(try first.object()["outcome"] as? String == "DECLINED")
            _ = try service.stop()
            // The process died after the attempt finished and before the key's answer was stored.
            try Self.sql(service.activation, "UPDATE idempotency_key SET status = NULL, answer = NULL")

            let restarted = try ServiceHarness.launch(service.activation)
            defer { _ = try? restarted.stop() }
            let retry = try restarted.activate("SN720001", headers: ["Idempotency-Key: lost-1"])
            #expect(retry.status == 200 && retry.headers["idempotent-replayed"] == "true")
            let object = try retry.object()
            #expect(object["outcome"] as? String == "DECLINED" && object["exitCode"] as? Int == 2)
            #expect(object["requestId"] as? String == (try first.object()["requestId"] as? String))
            #expect(object["auditId"] as? Int == (try first.object()["auditId"] as? Int))
            #expect(service.sandbox.activationRequestCount == 1)
            #expect(try service.activation.auditEntries().count == 1)
        }
    }

    @Test func aBatchLineWaitsInTheOneAdmission() async throws {
        let service = try await ServiceHarness.start(
            environment: ["TOKENCTL_SERVICE_MAX_IN_FLIGHT": "1", "TOKENCTL_SERVICE_QUEUE_LIMIT": "1"],
            slowDelay: .seconds(2),
            passes: [("SN760001", "SBXSLOW0001"), ("SN760002", "SBXSLOW0002"), ("SN760003", "DAPL00000000760003")]
        )
        try await withTeardown({ try await service.shutdown() }) {
            let socket = service.socket, cli = service.cli
            let batch = Background {
                try ServiceHarness.curl(
                    cli: cli, socket: socket, "POST", "http://localhost/v1/activations/batch",
                    body: "mybank://activate?serialNumber=SN760001\nmybank://activate?serialNumber=SN760002\n",
                    contentType: "text/plain"
                )
            }
            service.activation.waitForRequests(1)
            // One line runs, the next waits in the queue: a single request finds it full.
            let refused = try service.activate("SN760003")
            #expect(refused.status == 503)
            #expect(try refused.object()["code"] as? String == "service.overloaded")
            let metrics = try service.request("GET", "/metrics", contentType: nil)
            #expect(metrics.body.contains("tokenctl_inflight_activations 1"))
            // A batch arriving while the queue is full is refused whole, before a line is read.
            let refusedBatch = try service.request(
                "POST", "/v1/activations/batch", body: "mybank://activate?serialNumber=SN760003\n",
                contentType: "text/plain")
            #expect(refusedBatch.status == 503)
            #expect(try refusedBatch.object()["code"] as? String == "service.overloaded")
            let lines = try batch.join().lines()
            #expect(lines.map { $0["outcome"] as? String } == ["APPROVED", "APPROVED"])
            #expect(try service.activation.state("SN760003") == ["requiresActivation"])
        }
    }

    @Test func aLiveSocketIsNeverTakenOverAndACleanExitRemovesTheLockFile() async throws {
        let service = try await ServiceHarness.start()
        try await withTeardown({ try await service.shutdown() }) {
            // As when systemd's tokenctl.socket holds the path: a live socket, no lock file.
            try FileManager.default.removeItem(atPath: service.socket + ".lock")
            let second = try service.cli.run(["serve", "--socket", service.socket])
            #expect(second.status == 75)
            #expect(second.stderr.contains("still accepts connections on \(service.socket)"))
            #expect(second.stderr.contains("service.alreadyRunning"))
            // The first one still answers on its socket.
            #expect(try service.request("GET", "/livez", contentType: nil).status == 200)

            let third = try ServiceHarness.launch(
                service.activation, socket: service.cli.directory.file("t/other.sock"))
            let stopped = try third.stop()
            #expect(stopped.status == 0)
            #expect(!FileManager.default.fileExists(atPath: third.socket))
            #expect(!FileManager.default.fileExists(atPath: third.socket + ".lock"))
        }
    }

    @Test func aSocketInADirectoryWhoseParentIsMissingIsRefused() throws {
        let cli = CLI()
        let path = cli.directory.file("missing/deeper/x.sock")
        let refused = try cli.run(["serve", "--socket", path])
        #expect(refused.status == 69)
        #expect(refused.stderr.contains(cli.directory.file("missing")))
        #expect(!FileManager.default.fileExists(atPath: cli.directory.file("missing")))
    }
}

import Foundation
import TestSupport
import Testing

/// A batch stopped by a signal: every audited line is in the output, in-flight requests
/// finish, and the exit is 128 + the signal.
@Suite struct BatchInterruptTests {
    /// 40 passes whose requests each take `slowDelay` at the sandbox, and a batch file of them.
    func prepare(_ harness: ActivationHarness, prefix: String = "SNINT", count: Int = 40) throws -> String {
        var passes = "serialNumber,deviceAccountIdentifier\n"
        for index in 0..<count { passes += "\(prefix)\(index),SBXSLOW\(prefix)\(index)\n" }
        #expect(try harness.cli.run("wallet", "import", harness.cli.write("\(prefix).csv", passes)).status == 0)
        return harness.cli.write(
            "\(prefix).txt", (0..<count).map { "mybank://activate?serialNumber=\(prefix)\($0)\n" }.joined())
    }

    func requestIDs(_ stdout: String) throws -> Set<String> {
        Set(
            try stdout.split(separator: "\n").map { line in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return try #require(object["requestId"] as? String)
            })
    }

    /// Starts a batch of slow requests, waits until `concurrency` are in flight, and sends
    /// SIGINT twice: the second abandons them.
    func abandon(_ harness: ActivationHarness, _ file: String, json: Bool, concurrency: Int) throws -> CLIResult {
        let inFlight = harness.sandbox.activationRequestCount + concurrency
        let running = try harness.cli.start(
            ["activate", "--batch", file, "--concurrency", String(concurrency)] + (json ? ["--json"] : []),
            environment: ["TOKENCTL_TMP_TIMEOUT_MS": "10000"]
        )
        waitForRequests(harness, atLeast: inFlight)
        kill(running.process.processIdentifier, SIGINT)
        usleep(200_000)
        kill(running.process.processIdentifier, SIGINT)
        return try running.finish()
    }

    func waitForRequests(_ harness: ActivationHarness, atLeast count: Int) {
        let deadline = ContinuousClock.now + .seconds(10)
        while harness.sandbox.activationRequestCount < count && ContinuousClock.now < deadline { usleep(10_000) }
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func aSignalStopsReadingLetsInFlightRequestsFinishAndLosesNoLine(signal: Int32, status: Int32) async throws {
        let harness = try await ActivationHarness.start(slowDelay: .milliseconds(300))
        try await withTeardown({ try await harness.stop() }) {
            let file = try prepare(harness)

            let running = try harness.cli.start(["activate", "--batch", file, "--json", "--concurrency", "4"])
            waitForRequests(harness, atLeast: 6)
            kill(running.process.processIdentifier, signal)
            let result = try running.finish()

            #expect(result.status == status, "\(result.stderr)")
            #expect(result.stderr.contains("interrupted"))
            let printed = try requestIDs(result.stdout)
            let audited = try harness.auditEntries()
            #expect(audited.count < 40, "the batch stopped early")
            #expect(audited.allSatisfy { $0["finishedAt"] is String }, "an in-flight request was not finished")
            #expect(Set(audited.compactMap { $0["requestId"] as? String }) == printed)
            #expect(printed.count == harness.sandbox.activationRequestCount)
        }
    }

    @Test func theHumanSummarySaysTheBatchStoppedEarly() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .milliseconds(300))
        try await withTeardown({ try await harness.stop() }) {
            let file = try prepare(harness)
            let running = try harness.cli.start(["activate", "--batch", file, "--concurrency", "4"])
            waitForRequests(harness, atLeast: 6)
            kill(running.process.processIdentifier, SIGINT)
            let result = try running.finish()
            #expect(result.status == 130)
            #expect(result.stdout.contains("stopped early by a signal"), "\(result.stdout)")
            #expect(result.stdout.contains("exit 130"))
        }
    }

    @Test func aSecondSignalAbandonsTheRequestsInFlight() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .seconds(3))
        try await withTeardown({ try await harness.stop() }) {
            let file = try prepare(harness)
            let result = try abandon(harness, file, json: true, concurrency: 4)
            #expect(result.status == 130)
            #expect(result.stderr.contains("abandoning"))
            #expect(result.stdout.isEmpty)
            // The abandoned attempts stay open for the interrupted-owner rule of the next run.
            #expect(try harness.auditEntries().contains { !($0["finishedAt"] is String) })
        }
    }

    /// On a terminal the bar moves at least every 200 ms, even while every request is slow.
    @Test func theProgressBarRedrawsWhileRequestsAreSlow() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .milliseconds(400))
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SNBAR1", "SBXSLOW1")
            try harness.add("SNBAR2", "SBXSLOW2")
            try harness.add("SNBAR3", "SBXSLOW3")
            let file = harness.cli.write(
                "bar.txt", (1...3).map { "mybank://activate?serialNumber=SNBAR\($0)\n" }.joined())
            let started = ContinuousClock.now
            let (status, screen) = try runProgram(
                "/usr/bin/script", ["-qec", "\(CLI.binary) activate --batch \(file) --concurrency 1", "/dev/null"],
                environment: harness.cli.environment)
            let elapsed = ContinuousClock.now - started
            #expect(status == 0, "\(screen)")
            let redraws = screen.components(separatedBy: "\ractivating").count - 1
            // Three 400 ms requests in a row: about 1.2 s, so at least 4 redraws at 200 ms.
            #expect(elapsed > .milliseconds(1_100))
            #expect(redraws >= 4, "\(redraws) redraws in \(elapsed): \(screen.debugDescription.prefix(400))")
            #expect(screen.contains("3 lines: APPROVED 3"))
        }
    }

    /// After an abandoned batch, the re-run warns for each attempt it closes, in the line's
    /// JSON, on standard error and in the summary; the audit finds the attempts before and after.
    @Test func aRerunAfterAnAbandonedBatchWarnsAndTheAuditFindsTheAttempts() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .seconds(3))
        try await withTeardown({ try await harness.stop() }) {
            let file = try prepare(harness)
            #expect(try abandon(harness, file, json: true, concurrency: 4).status == 130)

            let open = try #require(
                try harness.cli.run("audit", "list", "--unfinished", "--json").json() as? [[String: Any]])
            #expect(open.count == 4)
            #expect(try harness.cli.run("audit", "list", "--unfinished", "--outcome", "UNKNOWN").status == 64)

            // The re-run closes the four and sends again, with warnings.
            let rerunFile = harness.cli.write(
                "rerun.txt", (0..<4).map { "mybank://activate?serialNumber=SNINT\($0)\n" }.joined())
            let rerun = try harness.cli.run(
                ["activate", "--batch", rerunFile, "--json"], environment: ["TOKENCTL_TMP_TIMEOUT_MS": "10000"])
            let lines = rerun.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(
                lines.filter { ($0["warnings"] as? [String])?.first?.contains("closed as UNKNOWN") == true }.count == 4,
                "\(rerun.stdout)")
            #expect(rerun.stderr.components(separatedBy: "warning: line ").count - 1 == 4, "\(rerun.stderr)")
            #expect((try harness.cli.run("audit", "list", "--unfinished", "--json").json() as? [Any])?.isEmpty == true)
            let unknown = try #require(
                try harness.cli.run("audit", "list", "--outcome", "UNKNOWN", "--json").json() as? [[String: Any]])
            #expect(unknown.count == 4)
            #expect(unknown.allSatisfy { $0["errorCode"] as? String == "activation.interrupted" })

            // The human summary counts them.
            let again = try prepare(harness, prefix: "SNAGAIN", count: 2)
            _ = try abandon(harness, again, json: false, concurrency: 2)
            let summary = try harness.cli.run(
                ["activate", "--batch", again], environment: ["TOKENCTL_TMP_TIMEOUT_MS": "10000"])
            #expect(
                summary.stdout.contains("warnings: 2 lines closed an unfinished attempt as UNKNOWN"),
                "\(summary.stdout)")
        }
    }
}

/// A batch read from a FIFO or a streamed request body: once the signal comes, no further
/// line is read or sent, and a read waiting for input is abandoned (DESIGN §8, "Lifecycle").
@Suite struct BatchReadStopTests {
    /// Waits up to `seconds` for `running` to exit; SIGKILLs it (recording the hang) otherwise.
    static func exit(_ running: RunningCLI, within seconds: Int) throws -> CLIResult {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while running.process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        if running.process.isRunning {
            Issue.record("still running \(seconds) s after the signal: the blocked read was not abandoned")
            kill(running.process.processIdentifier, SIGKILL)
        }
        return try running.finish()
    }

    @Test func theCLIBatchReadsNoLineAfterSIGTERMAndLeavesAWaitingRead() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .milliseconds(500))
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN781001", "SBXSLOW781001")
            try harness.add("SN781002", "DAPL00000000781002")
            let fifo = harness.cli.directory.file("lines.fifo")
            try #require(mkfifo(fifo, 0o600) == 0)
            let writer = open(fifo, O_RDWR | O_CLOEXEC)
            try #require(writer >= 0)
            defer { close(writer) }
            let running = try harness.cli.start(["activate", "--batch", fifo, "--json"])
            writeAll(writer, "mybank://activate?serialNumber=SN781001\n")
            let deadline = ContinuousClock.now + .seconds(10)
            while harness.sandbox.activationRequestCount < 1 && ContinuousClock.now < deadline { usleep(10_000) }
            kill(running.process.processIdentifier, SIGTERM)
            usleep(300_000)
            writeAll(writer, "mybank://activate?serialNumber=SN781002\n")
            let result = try Self.exit(running, within: 5)
            #expect(result.status == 143, "\(result.stderr)")
            #expect(harness.sandbox.activationRequestCount == 1)
            #expect(try harness.state("SN781002") == ["requiresActivation"])
            #expect(result.stdout.split(separator: "\n").count == 1)
        }
    }

    @Test func theServiceBatchReadsNoLineOnceDrainingStarts() async throws {
        let service = try await ServiceHarness.start(
            slowDelay: .milliseconds(500), passes: [("SN782001", "SBXSLOW782001"), ("SN782002", "DAPL00000000782002")])
        try await withTeardown({ try await service.activation.stop() }) {
            // A client streaming its batch as a chunked body, a line at a time.
            let client = try UnixClient(path: service.socket)
            client.send(
                "POST /v1/activations/batch HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            client.sendChunk("mybank://activate?serialNumber=SN782001\n")
            service.activation.waitForRequests(1)
            kill(service.process.process.processIdentifier, SIGTERM)
            usleep(300_000)
            client.sendChunk("mybank://activate?serialNumber=SN782002\n")
            let stopped = try Self.exit(service.process, within: 8)
            #expect(stopped.status == 0, "\(stopped.stderr)")
            let answer = client.receiveAll(timeout: .seconds(5))
            let lines = answer.split(separator: "\n").filter { $0.contains("\"outcome\"") }
            #expect(lines.count == 1 && lines.first?.contains("APPROVED") == true, "\(answer)")
            // The answer says it was cut short, and after which line (the CLI's "stopped early").
            #expect(answer.contains(#"{"stopped": "draining", "linesRead": 1}"#), "\(answer)")
            #expect(service.sandbox.activationRequestCount == 1)
            #expect(try service.activation.state("SN782002") == ["requiresActivation"])
        }
    }
}

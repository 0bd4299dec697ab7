import Foundation
import TestSupport
import Testing

/// A batch stopped by a signal: every audited line is in the output, in-flight requests
/// finish, and the exit is 128 + the signal.
@Suite struct BatchInterruptTests {
    /// 40 passes whose requests each take `slowDelay` at the sandbox, and a batch file of them.
    func prepare(_ harness: ActivationHarness) throws -> String {
        var passes = "serialNumber,deviceAccountIdentifier\n"
        for index in 0..<40 { passes += "SNINT\(index),SBXSLOW\(index)\n" }
        #expect(try harness.cli.run("wallet", "import", harness.cli.write("passes.csv", passes)).status == 0)
        return harness.cli.write("batch.txt", (0..<40).map { "mybank://activate?serialNumber=SNINT\($0)\n" }.joined())
    }

    func requestIDs(_ stdout: String) throws -> Set<String> {
        Set(try stdout.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(object["requestId"] as? String)
        })
    }

    func waitForRequests(_ harness: ActivationHarness, atLeast count: Int) {
        let deadline = ContinuousClock.now + .seconds(10)
        while harness.sandbox.activationRequestCount < count && ContinuousClock.now < deadline { usleep(10_000) }
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func aSignalStopsReadingLetsInFlightRequestsFinishAndLosesNoLine(signal: Int32, status: Int32) async throws {
        let harness = try await ActivationHarness.start(slowDelay: .milliseconds(300))
        defer { Task { try await harness.stop() } }
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

    @Test func theHumanSummarySaysTheBatchStoppedEarly() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .milliseconds(300))
        defer { Task { try await harness.stop() } }
        let file = try prepare(harness)
        let running = try harness.cli.start(["activate", "--batch", file, "--concurrency", "4"])
        waitForRequests(harness, atLeast: 6)
        kill(running.process.processIdentifier, SIGINT)
        let result = try running.finish()
        #expect(result.status == 130)
        #expect(result.stdout.contains("stopped early by a signal"), "\(result.stdout)")
        #expect(result.stdout.contains("exit 130"))
    }

    @Test func aSecondSignalAbandonsTheRequestsInFlight() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .seconds(3))
        defer { Task { try await harness.stop() } }
        let file = try prepare(harness)
        let running = try harness.cli.start(["activate", "--batch", file, "--json", "--concurrency", "4"], environment: ["TOKENCTL_TMP_TIMEOUT_MS": "10000"])
        waitForRequests(harness, atLeast: 4)
        kill(running.process.processIdentifier, SIGINT)
        usleep(200_000)
        kill(running.process.processIdentifier, SIGINT)
        let result = try running.finish()
        #expect(result.status == 130)
        #expect(result.stderr.contains("abandoning"))
        #expect(result.stdout.isEmpty)
        // The abandoned attempts stay open for the interrupted-owner rule of the next run.
        #expect(try harness.auditEntries().contains { !($0["finishedAt"] is String) })
    }

    /// On a terminal the bar moves at least every 200 ms, even while every request is slow.
    @Test func theProgressBarRedrawsWhileRequestsAreSlow() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .milliseconds(400))
        defer { Task { try await harness.stop() } }
        try harness.add("SNBAR1", "SBXSLOW1")
        try harness.add("SNBAR2", "SBXSLOW2")
        try harness.add("SNBAR3", "SBXSLOW3")
        let file = harness.cli.write("bar.txt", (1...3).map { "mybank://activate?serialNumber=SNBAR\($0)\n" }.joined())
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        script.arguments = ["-qec", "\(CLI.binary) activate --batch \(file) --concurrency 1", "/dev/null"]
        script.environment = harness.cli.environment
        let output = Pipe()
        script.standardOutput = output
        script.standardInput = FileHandle.nullDevice
        let started = ContinuousClock.now
        try script.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        script.waitUntilExit()
        let elapsed = ContinuousClock.now - started
        let screen = String(decoding: data, as: UTF8.self)
        #expect(script.terminationStatus == 0, "\(screen)")
        let redraws = screen.components(separatedBy: "\ractivating").count - 1
        // Three 400 ms requests in a row: about 1.2 s, so at least 4 redraws at 200 ms.
        #expect(elapsed > .milliseconds(1_100))
        #expect(redraws >= 4, "\(redraws) redraws in \(elapsed): \(screen.debugDescription.prefix(400))")
        #expect(screen.contains("3 lines: APPROVED 3"))
    }
}

import Foundation
import TestSupport
import Testing

/// Many writers on one database (`make stress` only, TOKENCTL_STRESS=1): 16 handler loops
/// of 500 `tokenctl activate` runs each, a batch and a 50,000-row import, all at once.
/// Every activation is approved and audited, no run fails with "database is locked", the
/// import commits whole, and the chain verifies. Prints p50/p99 latency of one activate.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["TOKENCTL_STRESS"] != nil))
struct LoadTests {
    static let workers = 16
    static let runsPerWorker = 500
    static let batchLines = 2_000
    static let importRows = 50_000

    @Test func sixteenHandlersABatchAndAnImportShareOneDatabase() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            var cli = harness.cli
            cli.environment["TOKENCTL_TMP_TIMEOUT_MS"] = "15000"
            var passes = "serialNumber,deviceAccountIdentifier\n"
            for worker in 0..<Self.workers {
                for run in 0..<Self.runsPerWorker { passes += "W\(worker)N\(run),DAPLW\(worker)N\(run)\n" }
            }
            for line in 0..<Self.batchLines { passes += "B\(line),DAPLB\(line)\n" }
            try #require(try cli.run("wallet", "import", cli.write("passes.csv", passes)).status == 0)
            let batchFile = cli.write(
                "batch.txt", (0..<Self.batchLines).map { "mybank://activate?serialNumber=B\($0)\n" }.joined())
            let importFile = cli.write(
                "more.csv",
                "serialNumber,deviceAccountIdentifier\n" + (0..<Self.importRows).map { "I\($0),DAPLI\($0)\n" }.joined())

            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "Fixtures/activate_loop.sh"
            ).path
            let started = ContinuousClock.now
            let loops = try (0..<Self.workers).map { worker in
                try cli.start(
                    [
                        CLI.binary, "W\(worker)N", "\(Self.runsPerWorker)", cli.directory.file("results-\(worker)"),
                        cli.directory.file("errors-\(worker)"),
                    ], executable: script)
            }
            let batch = try cli.start(["activate", "--batch", batchFile, "--concurrency", "4", "--json"])
            usleep(500_000)
            let imported = try cli.start(["wallet", "import", importFile])
            let importResult = try imported.finish()
            let batchResult = try batch.finish()
            for loop in loops { _ = try loop.finish() }
            let elapsed = ContinuousClock.now - started

            var latencies: [Int] = []
            var failures: [String] = []
            for worker in 0..<Self.workers {
                let results = try String(contentsOfFile: cli.directory.file("results-\(worker)"), encoding: .utf8)
                for line in results.split(separator: "\n") {
                    let fields = line.split(separator: " ")
                    latencies.append(Int(fields[1]) ?? 0)
                    if fields[0] != "0" { failures.append("worker \(worker): exit \(fields[0])") }
                }
                let errors = try String(contentsOfFile: cli.directory.file("errors-\(worker)"), encoding: .utf8)
                #expect(!errors.contains("locked"), "worker \(worker): \(errors.prefix(300))")
                if !errors.isEmpty { failures.append("worker \(worker): \(errors.prefix(200))") }
            }
            latencies.sort()
            let total = Self.workers * Self.runsPerWorker
            #expect(latencies.count == total)
            #expect(failures.isEmpty, "\(failures.prefix(5))")
            #expect(importResult.status == 0, "\(importResult.stderr)")
            #expect(batchResult.status == 0, "\(batchResult.stderr.suffix(300))")
            #expect(!batchResult.stderr.contains("locked") && !importResult.stderr.contains("locked"))

            let entries = try harness.auditEntries()
            let approved = entries.filter { $0["outcome"] as? String == "APPROVED" }.count
            let audited = Set(entries.compactMap { $0["requestId"] as? String })
            let unaudited = try harness.unauditedRequests()
            #expect(approved == total + Self.batchLines, "approved \(approved)")
            #expect(harness.sandbox.activationRequestCount == total + Self.batchLines)
            #expect(unaudited.isEmpty, "\(unaudited.count) requests not audited")
            #expect(try cli.run("audit", "verify").status == 0)
            let records = try #require(try cli.run("wallet", "list", "--json").json() as? [[String: Any]])
            #expect(records.count == total + Self.batchLines + Self.importRows)

            func percentile(_ p: Double) -> Double {
                Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1000
            }
            print(
                String(
                    format:
                        "load: %d activate runs by %d handlers + a %d-line batch + a %d-row import in %.1f s; activate p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d approved, %d audited requests, 0 lost, %d \"locked\" failures",
                    total, Self.workers, Self.batchLines, Self.importRows,
                    Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                    percentile(0.5), percentile(0.99), percentile(1), approved, audited.count, failures.count))
        }
    }
}

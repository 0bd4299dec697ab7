import Foundation
import GRDB
import TestSupport
import Testing

/// SIGKILL at random moments during batch activation and wallet import, on one database
/// for all rounds, on SQLite and on PostgreSQL. After every kill: `PRAGMA integrity_check`
/// is ok (SQLite), `audit verify` passes, every request the sandbox received has an audit
/// entry, and an import is all or nothing. At the end, one batch run closes what the kills
/// interrupted (on PostgreSQL once the killed attempts' leases have expired).
///
/// Rounds: `TOKENCTL_CRASH_ROUNDS` (default 10; `make stress` runs 100). The seed is
/// printed; `TOKENCTL_CRASH_SEED` replays the same schedule (kill moments are relative
/// to process start, so the interleaving itself may still differ).
@Suite struct CrashConsistencyTests {
    static let importRows = 5_000
    static let batchLines = 300

    /// The lease of an attempt on PostgreSQL in this test (the shortest allowed).
    static let leaseMilliseconds = 1_000

    @Test(arguments: Backend.allCases)
    func killedBatchesAndImportsLeaveAConsistentDatabase(_ backend: Backend) async throws {
        let rounds = ProcessInfo.processInfo.environment["TOKENCTL_CRASH_ROUNDS"].flatMap(Int.init) ?? 10
        let seed = SeededGenerator.seed(from: "TOKENCTL_CRASH_SEED")
        print(
            "crash consistency on \(backend): \(rounds) rounds, seed \(seed) (TOKENCTL_CRASH_SEED=\(seed) replays it)")
        var random = SeededGenerator(seed: seed)
        var started = try await ActivationHarness.start(backend: backend)
        started.cli.environment["TOKENCTL_DATABASE_LEASE_MS"] = String(Self.leaseMilliseconds)
        let harness = started
        try await withTeardown({ try await harness.stop() }) {
            try #require(try harness.cli.run("wallet", "list").status == 0)  // creates the database
            var state = RoundState(harness: harness)
            _ = try state.importPasses(round: 0, killAfter: nil)

            var killedDuringWork = 0
            for round in 1...rounds {
                let isImport = Bool.random(using: &random)
                // A moment within the usual length of the work, sometimes just past it.
                let usual = isImport ? state.importDuration : state.batchDuration
                let delay = Duration.microseconds(Int64.random(in: 0...Int64(usual.microseconds * 1.2), using: &random))
                let killedMidWay =
                    try isImport
                    ? state.importPasses(round: round, killAfter: delay) : state.activateBatch(killAfter: delay)
                if killedMidWay { killedDuringWork += 1 }
                try state.checkConsistency(
                    after: "round \(round) (\(isImport ? "import" : "batch"), kill after \(delay))")
            }
            print(
                "crash consistency on \(backend): \(rounds) rounds survived, \(killedDuringWork) killed mid-way, seed \(seed)"
            )

            // Recovery: a full run closes every interrupted attempt and activates the rest.
            if backend == .postgres { usleep(UInt32(Self.leaseMilliseconds + 200) * 1000) }
            let finish = try harness.cli.run([
                "activate", "--batch", state.batchFile(serials: state.allSerials), "--json", "--concurrency", "4",
            ])
            #expect([0, 69].contains(finish.status), "\(finish.stderr.suffix(500))")
            let stuck = try state.count("SELECT COUNT(*) FROM pass_record WHERE state = 'activating'")
            #expect(stuck == 0, "passes left activating after recovery")
            try state.checkConsistency(after: "recovery")
        }
    }
}

/// What the rounds share: the harness, the serials committed so far, and typical durations.
private struct RoundState {
    let harness: ActivationHarness
    var allSerials: [String] = []
    var importDuration = Duration.milliseconds(400)
    var batchDuration = Duration.milliseconds(400)

    init(harness: ActivationHarness) {
        self.harness = harness
    }

    /// Imports new passes (killed after `delay` when given); true when the kill landed
    /// before the import ended. Checks the import was all or nothing.
    mutating func importPasses(round: Int, killAfter delay: Duration?) throws -> Bool {
        let serials = (0..<CrashConsistencyTests.importRows).map { "R\(round)N\($0)" }
        let rows = serials.enumerated().map { "\($1),DAPLR\(round)N\($0)\n" }.joined()
        let file = harness.cli.write("import-\(round).csv", "serialNumber,deviceAccountIdentifier\n" + rows)
        let before = try count("SELECT COUNT(*) FROM pass_record")
        let (killedMidWay, result, elapsed) = try run(["wallet", "import", file], killAfter: delay)
        let after = try count("SELECT COUNT(*) FROM pass_record")
        let committed = after == before + serials.count
        #expect(committed || after == before, "import \(round) half-written: \(before) → \(after)")
        if !killedMidWay {
            #expect(result?.status == 0 && committed, "import \(round) did not finish: \(result?.stderr ?? "")")
            importDuration = elapsed
        }
        if committed { allSerials += serials }
        return killedMidWay
    }

    /// Activates the most recent passes in one batch, killed after `delay`.
    mutating func activateBatch(killAfter delay: Duration) throws -> Bool {
        let file = try batchFile(serials: Array(allSerials.suffix(CrashConsistencyTests.batchLines)))
        let (killedMidWay, result, elapsed) = try run(
            ["activate", "--batch", file, "--json", "--concurrency", "4"], killAfter: delay)
        if !killedMidWay {
            #expect([0, 69].contains(result?.status ?? -1), "\(result?.stderr.suffix(300) ?? "")")
            batchDuration = elapsed
        }
        return killedMidWay
    }

    func batchFile(serials: [String]) throws -> String {
        harness.cli.write("batch.txt", serials.map { "mybank://activate?serialNumber=\($0)\n" }.joined())
    }

    /// Runs tokenctl and SIGKILLs it after `delay`, unless it ended first.
    private func run(
        _ arguments: [String], killAfter delay: Duration?
    ) throws -> (killedMidWay: Bool, result: CLIResult?, elapsed: Duration) {
        let started = ContinuousClock.now
        let process = try harness.cli.start(arguments)
        guard let delay else {
            let result = try process.finish()
            return (false, result, ContinuousClock.now - started)
        }
        let deadline = started + delay
        while process.process.isRunning && ContinuousClock.now < deadline { usleep(1_000) }
        let killedMidWay = process.process.isRunning
        if killedMidWay { kill(process.process.processIdentifier, SIGKILL) }
        let result = try process.finish()
        return (killedMidWay, killedMidWay ? nil : result, ContinuousClock.now - started)
    }

    /// A count, read with psql on PostgreSQL, with GRDB on SQLite.
    func count(_ sql: String) throws -> Int {
        if let database = harness.postgres {
            let result = try database.psql(sql)
            try #require(result.status == 0, "\(result.output)")
            return Int(result.output) ?? -1
        }
        return try DatabaseQueue(path: harness.cli.databasePath).read { try Int.fetchOne($0, sql: sql) ?? 0 }
    }

    func checkConsistency(after what: String) throws {
        if harness.postgres == nil {
            let integrity = try DatabaseQueue(path: harness.cli.databasePath).read {
                try String.fetchAll($0, sql: "PRAGMA integrity_check")
            }
            #expect(integrity == ["ok"], "\(what): \(integrity)")
        }
        let verify = try harness.cli.run("audit", "verify")
        #expect(verify.status == 0, "\(what): \(verify.stdout) \(verify.stderr)")
        let unaudited = try harness.unauditedRequests()
        #expect(unaudited.isEmpty, "\(what): \(unaudited.count) requests the audit does not know")
    }
}

private extension Duration {
    var microseconds: Double { Double(components.seconds) * 1e6 + Double(components.attoseconds) / 1e12 }
}

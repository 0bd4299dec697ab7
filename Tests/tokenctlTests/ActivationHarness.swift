import Foundation
import Sandbox
import TestSupport
import Testing

/// The database a test runs on: the same test bodies run on both.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// Points `cli` at the backend: PostgreSQL gets a new database of its own, migrated.
    func prepare(_ cli: inout CLI) throws -> TestPostgres.Database? {
        guard self == .postgres else { return nil }
        let database = try TestPostgres.makeDatabase()
        cli.environment.merge(database.environment) { $1 }
        let migrated = try cli.run("db", "migrate")
        try #require(migrated.status == 0, "\(migrated.stderr)")
        return database
    }
}

/// A wallet with example passes, a sandbox on a free port, and the CLI pointed at both.
struct ActivationHarness {
    var cli = CLI()
    let sandbox: TMPSandbox
    /// The PostgreSQL database, when the harness runs on one.
    var postgres: TestPostgres.Database?

    /// - Parameter backend: PostgreSQL gets a new database of its own, migrated.
    static func start(slowDelay: Duration = .seconds(3), backend: Backend = .sqlite) async throws -> ActivationHarness {
        let sandbox = try await TMPSandbox.start(port: 0, slowDelay: slowDelay)
        var harness = ActivationHarness(sandbox: sandbox)
        harness.cli.environment["TOKENCTL_TMP_BASE_URL"] = sandbox.baseURL
        harness.cli.environment["TOKENCTL_TMP_TIMEOUT_MS"] = "1000"
        harness.postgres = try backend.prepare(&harness.cli)
        return harness
    }

    func stop() async throws {
        try await sandbox.shutdown()
    }

    func add(_ serial: String, _ account: String, state: String = "requiresActivation", device: String? = nil) throws {
        var arguments = ["wallet", "add", "--serial", serial, "--device-account-id", account, "--state", state]
        if let device { arguments += ["--device", device] }
        let result = try cli.run(arguments)
        try #require(result.status == 0, "\(result.stderr)")
    }

    func activate(_ serial: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> CLIResult {
        try cli.run(
            ["activate", "mybank://activate?serialNumber=\(serial)", "--json"] + extra, environment: environment)
    }

    func auditEntries() throws -> [[String: Any]] {
        try #require(try cli.run("audit", "list", "--json", "--reveal").json() as? [[String: Any]])
    }

    /// Request ids the sandbox received that no audit entry records (empty when every
    /// request that reached the server is audited).
    func unauditedRequests() throws -> Set<String> {
        let received = Set(sandbox.requests.compactMap { $0.header("X-Request-ID") })
        return received.subtracting(try auditEntries().compactMap { $0["requestId"] as? String })
    }

    /// Waits (up to 20 s) until the sandbox has received `count` activation requests. Polls
    /// without yielding: other tests block the cooperative threads while their processes
    /// run, and an awaiting poller could wake only after the answer came.
    func waitForRequests(_ count: Int) {
        let deadline = ContinuousClock.now + .seconds(20)
        while sandbox.activationRequestCount < count && ContinuousClock.now < deadline {
            usleep(5_000)
        }
    }

    /// The states of the serial's records, as `wallet show --json` reports them. Throws (and
    /// records nothing, so that a caller may poll) when the command gives no list, with what
    /// it printed.
    func state(_ serial: String) throws -> [String] {
        let result = try cli.run("wallet", "show", serial, "--json")
        guard let records = (try? result.json()) as? [[String: Any]] else { throw UnreadableState(result: result) }
        return records.compactMap { $0["state"] as? String }
    }

    struct UnreadableState: Error, CustomStringConvertible {
        var result: CLIResult
        var description: String { "wallet show exited \(result.status): \(result.stdout)\(result.stderr)" }
    }
}

extension CLIResult {
    var object: [String: Any] { (try? jsonObject()) ?? [:] }
    var outcome: String? { object["outcome"] as? String }
    var errorCode: String? { (object["error"] as? [String: Any])?["code"] as? String }
}

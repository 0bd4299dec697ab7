import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import TestSupport
import Testing

/// DESIGN §5: no blocking call on a cooperative thread. The service runs in process with every
/// task of its server on one executor thread (``OneThreadExecutor``, a cooperative pool of
/// one), under load, with the user gate on, on each database. A call that waited for another
/// task on that thread would never return (the time limit fails it: a generous one, as the
/// suite's blocking tests can keep the shared pool busy); one that blocked the
/// thread on I/O or another thread's work would give up the thread in every request. Fewer jobs
/// than requests may, waiting on a lock whose holder a loaded machine preempted (1 job in 250
/// on an idle machine, 1 in 35 in the whole suite).
@Suite struct CooperativeExecutorTests {
    /// The check itself: a job that sleeps on its thread is counted, a task that awaits a sleep
    /// is not.
    @Test func aJobThatBlocksItsThreadIsCounted() async throws {
        let executor = OneThreadExecutor()
        defer { executor.stop() }
        try await withTaskExecutorPreference(executor) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(executor.report.blocked == 0 && executor.report.jobs >= 1)
        try await withTaskExecutorPreference(executor) {
            // On the executor's thread from the first suspension on.
            try await Task.sleep(for: .milliseconds(1))
            usleep(20_000)
        }
        #expect(executor.report.blocked == 1, "\(executor.report)")
    }

    @Test(.timeLimit(.minutes(10)), arguments: ["sqlite", "postgres"])
    func theServiceNeverBlocksItsExecutorUnderLoad(backend: String) async throws {
        var environment = ["TOKENCTL_ONBOARDING_REQUIRE_FINISHED_USER_ACTIVATION": "true"]
        if backend == "postgres" {
            let database = try await Threads.run { try TestPostgres.makeDatabase() }
            environment["TOKENCTL_DATABASE_URL"] = database.url
            environment["TOKENCTL_DATABASE_PASSWORD"] = TestPostgres.password
        }
        // The service's own log handler writes each line with one write(2); swift-log's default,
        // which a test process has, holds a lock around its writes that the threads contend for.
        let fixture = try await APIRouterTests.Fixture.start(
            environment: environment, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let executor = OneThreadExecutor()
        try await withTeardown({
            executor.stop()
            try await fixture.stop()
        }) {
            let statuses = try await withTaskExecutorPreference(executor) {
                try await fixture.served { client in
                    try await Self.load(client)
                }
            }
            // Each activation met the gate (no device is activated here), each read was answered.
            let counted = Dictionary(grouping: statuses) { $0 }.mapValues(\.count)
            #expect(counted[200] == Self.clients * Self.rounds * 3, "\(counted)")
            #expect(statuses.allSatisfy { $0 < 500 }, "\(counted)")
            let report = executor.report
            #expect(report.jobs > Self.clients * Self.rounds * 4, "\(report)")
            // A call that blocked in every request would give the thread up at least once each.
            #expect(report.switched < statuses.count, "\(report)")
        }
    }

    static let clients = 16
    static let rounds = 6

    /// `clients` clients at once, each `rounds` times: a keyed activation, a pass, an audit
    /// page and readiness.
    static func load(_ client: ServedClient) async throws -> [Int] {
        try await withThrowingTaskGroup(of: [Int].self) { group in
            for number in 0..<clients {
                group.addTask {
                    var statuses: [Int] = []
                    for round in 0..<rounds {
                        let body = ByteBuffer(
                            string: #"{"deeplink": "mybank://activate?serialNumber=SN\#(1 + (number + round) % 2)"}"#)
                        let keyed: HTTPFields = [
                            .contentType: "application/json",
                            HTTPField.Name("Idempotency-Key")!: "load-\(number)-\(round)",
                        ]
                        for (uri, method, headers, body) in [
                            ("/v1/activations", HTTPRequest.Method.post, keyed, body),
                            ("/v1/passes/SN1", .get, [:], nil),
                            ("/v1/audit?limit=5", .get, [:], nil),
                            ("/readyz", .get, [:], nil),
                        ] as [(String, HTTPRequest.Method, HTTPFields, ByteBuffer?)] {
                            let response = try await client.execute(
                                uri: uri, method: method, headers: headers, body: body)
                            statuses.append(Int(response.status.code))
                        }
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }
}

import Foundation
import TestSupport
import Testing
import WalletModel

@testable import PostgresStorage

/// `tokenctl_step` on a real server, called as the group writer calls it: the statuses and
/// reads one call answers, and what it answers when a change comes again.
@Suite struct TokenctlStepTests {
    private struct Fixture {
        let store: PostgresStore
        let database: TestPostgres.Database

        init() async throws {
            let database = try await Threads.run { try TestPostgres.makeDatabase() }
            self.database = database
            let url = try PostgresURL(parsing: database.url)
            store = try await PostgresStore(
                options: PostgresOptions(
                    host: url.host, port: url.port, user: url.user, database: url.database, tls: .disable,
                    password: TestPostgres.password, hostID: "h1"),
                checkingSchema: false
            )
            try await store.migrate()
            try await Threads.run {
                try database.psql(
                    "INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier) VALUES ('t', 'S1', 'D1'), ('t', 'S2', 'D2')"
                )
            }
        }

        func step(_ changes: [AttemptChange], reads: [PassQuery] = []) async throws -> StepAnswer {
            try await store.step(changes, reads: reads, genesis: AuditRow.genesisHash)
        }

        func count(_ sql: String) throws -> String {
            try database.psql(sql).output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// An audit row of attempt `attempt`, `second` seconds into 2026.
    private static func auditRow(
        _ attempt: Int64, _ event: AuditRow.Event, second: Int64, outcome: String? = nil
    ) -> AuditRow {
        AuditRow(
            attemptID: attempt, event: event, at: Timestamp(milliseconds: 1_767_225_600_000 + second * 1000),
            requestID: "r\(attempt)",
            serialNumber: "S1", passTypeIdentifier: "t", tokenUniqueReference: "D1", deeplinkHash: "h", outcome: outcome
        )
    }

    private static func row(
        _ attempt: Int64, _ event: AuditRow.Event, second: Int64, outcome: String? = nil
    ) -> AuditRowValues {
        AuditRowValues(auditRow(attempt, event, second: second, outcome: outcome))
    }

    /// A lease no test outlives: a suite that waits for the cooperative pool behind others
    /// must still find its leases live.
    private static let leaseMilliseconds = 3_600_000

    private static func start(
        _ attempt: Int64, serial: String = "S1", token: String = "D1", holder: Int64? = nil,
        from: String = "requiresActivation", second: Int64 = 0
    ) -> AttemptChange {
        AttemptChange(
            pass: .init(
                serial: serial, passType: "t", token: token, from: from, to: "activating", holder: holder,
                lease: .init(
                    attempt: attempt, request: "r\(attempt)", deeplink: "h", host: "h1", pid: 1, processStart: "x",
                    milliseconds: Self.leaseMilliseconds)),
            rows: [row(attempt, .started, second: second)]
        )
    }

    private static func finish(_ attempt: Int64, second: Int64, outcome: String) -> AttemptChange {
        AttemptChange(
            pass: .init(
                serial: "S1", passType: "t", token: "D1", from: "activating", to: "activated", holder: attempt,
                lease: nil),
            rows: [row(attempt, .finished, second: second, outcome: outcome)]
        )
    }

    @Test func aChangeSentAgainAfterItsAnswerWasLostIsDone() async throws {
        let fixture = try await Fixture()
        let start = Self.start(1)
        #expect(try await fixture.step([start]).statuses == [.ok])
        #expect(try await fixture.step([start]).statuses == [.done])
        let finish = Self.finish(1, second: 1, outcome: "APPROVED")
        #expect(try await fixture.step([finish]).statuses == [.ok])
        #expect(try await fixture.step([finish]).statuses == [.done])
        #expect(try fixture.count("SELECT count(*) FROM audit_row") == "2")
        #expect(
            try fixture.count(
                "SELECT state || ' ' || coalesce(lease_attempt_id::text, '-') FROM pass_record WHERE serial_number = 'S1'"
            ) == "activated -")
    }

    @Test func aFinishAfterAnotherHostClosedTheAttemptIsAConflict() async throws {
        let fixture = try await Fixture()
        #expect(try await fixture.step([Self.start(1)]).statuses == [.ok])
        // Another host found the lease expired and started attempt 2, closing 1 as UNKNOWN.
        var takeover = Self.start(2, holder: 1, from: "activating", second: 60)
        takeover.rows.insert(Self.row(1, .finished, second: 60, outcome: "UNKNOWN"), at: 0)
        #expect(try await fixture.step([takeover]).statuses == [.ok])
        // Attempt 1's own answer comes late: not "done" (the finished row there is not its own).
        #expect(try await fixture.step([Self.finish(1, second: 61, outcome: "APPROVED")]).statuses == [.conflict])
        #expect(try fixture.count("SELECT lease_attempt_id FROM pass_record WHERE serial_number = 'S1'") == "2")
    }

    @Test func twoStartsOfOnePassInOneCallLeaveOneOkAndOneConflict() async throws {
        let fixture = try await Fixture()
        let answer = try await fixture.step([Self.start(1), Self.start(2), Self.start(3, serial: "S2", token: "D2")])
        #expect(answer.statuses == [.ok, .conflict, .ok])
        #expect(try fixture.count("SELECT count(*) FROM audit_row") == "2")
    }

    @Test func readsFollowTheCallsWritesEachWithANewAttemptID() async throws {
        let fixture = try await Fixture()
        let answer = try await fixture.step(
            [Self.start(100)],
            reads: [
                PassQuery(serialNumber: "S1"), PassQuery(serialNumber: "S2"), PassQuery(serialNumber: "NONE"),
                PassQuery(serialNumber: "S1", device: "no such device"),
            ])
        #expect(answer.statuses == [.ok])
        #expect(answer.resolutions.map(\.passes.count) == [1, 1, 0, 0])
        #expect(Set(answer.resolutions.map(\.attemptID)).count == 4)
        let s1 = try #require(answer.resolutions[0].passes.first)
        #expect(
            s1.pass.state == .activating && s1.lease?.attemptID == 100 && s1.lease?.hostID == "h1"
                && s1.lease?.isLive == true)
        #expect(answer.resolutions[1].passes.first?.lease == nil)
    }

    /// The answer names every value (migration v6): a pass, its lease, the new attempt id.
    @Test func theAnswerNamesEveryValue() async throws {
        let fixture = try await Fixture()
        #expect(try await fixture.step([Self.start(7)]).statuses == [.ok])
        let answer = try fixture.count("CALL tokenctl_step('[]'::jsonb, '[{\"serial\": \"S1\"}]'::jsonb, 'g', NULL)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
        let read = try #require((object["reads"] as? [[String: Any]])?.first)
        #expect(read["attempt"] is Int)
        let pass = try #require((read["passes"] as? [[String: Any]])?.first)
        #expect(Set(pass.keys) == ["passType", "serial", "token", "state", "device", "cardSuffix", "lease"])
        #expect(
            pass["state"] as? String == "activating" && pass["serial"] as? String == "S1"
                && pass["token"] as? String == "D1")
        let lease = try #require(pass["lease"] as? [String: Any])
        #expect(Set(lease.keys) == ["attempt", "request", "deeplink", "host", "pid", "processStart", "live"])
        #expect(lease["attempt"] as? Int == 7 && lease["request"] as? String == "r7" && lease["live"] as? Bool == true)
        // Decoded the same way by the client.
        let resolved = try #require(
            try await fixture.step([], reads: [PassQuery(serialNumber: "S1")]).resolutions.first?.passes.first)
        #expect(
            resolved.pass.state == .activating && resolved.lease?.attemptID == 7 && resolved.lease?.requestID == "r7")
    }

    /// A pass state this binary does not know is an error naming the way out, never a default.
    @Test func anAnswerThisBinaryCannotReadIsAnError() async throws {
        let fixture = try await Fixture()
        _ = try fixture.database.psql("ALTER TABLE pass_record DROP CONSTRAINT IF EXISTS pass_record_state_check")
        _ = try fixture.database.psql("UPDATE pass_record SET state = 'frozen' WHERE serial_number = 'S2'")
        #expect(try fixture.count("SELECT state FROM pass_record WHERE serial_number = 'S2'") == "frozen")
        do {
            _ = try await fixture.step([], reads: [PassQuery(serialNumber: "S2")])
            Issue.record("an unknown state was read")
        } catch let error as StorageError {
            #expect(error.code == .storageCorrupt, "\(error.message)")
            #expect(error.message.contains("tokenctl db migrate"), "\(error.message)")
        }
    }

    @Test func theChainIsHashedAsOnSQLite() async throws {
        let fixture = try await Fixture()
        let rows = [Self.auditRow(1, .started, second: 0), Self.auditRow(1, .finished, second: 1, outcome: "DECLINED")]
        let change = AttemptChange(pass: nil, rows: rows.map(AuditRowValues.init))
        #expect(try await fixture.step([change]).statuses == [.ok])
        #expect(try await fixture.step([change]).statuses == [.done])
        let first = rows[0].hash(previous: AuditRow.genesisHash)
        let expected = "\(AuditRow.genesisHash) \(first)\n\(first) \(rows[1].hash(previous: first))"
        #expect(
            try fixture.count("SELECT string_agg(previous_hash || ' ' || hash, E'\\n' ORDER BY seq) FROM audit_row")
                == expected)
    }
}

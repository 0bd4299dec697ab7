import Foundation
import TestSupport
import Testing

/// A `database.url` naming several hosts (DESIGN §10), on a primary and a synchronous standby
/// of the test's own: the hosts are tried in order and the primary is the one written, past a
/// standby and a host that does not answer; `target_session_attrs` lets the commands that
/// only read use the standby and refuses the others; once the primary dies and the standby is
/// promoted, the same URL reaches the new primary.
@Suite struct FleetHostsTests {
    @Test func thePrimaryIsFoundAmongTheHostsAndAfterAPromotion() async throws {
        let fleet = try Fleet.start("hosts-test")
        defer { fleet.remove() }
        let (primary, standby, silent) = (fleet.primaryPort, fleet.standbyPort, try unusedPort())
        var harness = try await ActivationHarness.start()
        let sandbox = harness.sandbox
        try await withTeardown({ try await sandbox.shutdown() }) {
            // The standby first, then a port nothing listens on, then the primary.
            let hosts = "127.0.0.1:\(standby),127.0.0.1:\(silent),127.0.0.1:\(primary)"
            let url = "postgres://tokenctl@\(hosts)/tokenctl?sslmode=disable"
            harness.cli.environment["TOKENCTL_DATABASE_URL"] = url
            harness.cli.environment["TOKENCTL_DATABASE_PASSWORD"] = TestPostgres.password
            let migrated = try harness.cli.run("db", "migrate")
            #expect(migrated.status == 0, "\(migrated.stderr)")
            try harness.add("SNHOSTS1", "DAPL000000HOSTS1")
            let first = try harness.activate("SNHOSTS1")
            #expect(first.status == 0, "\(first.stderr)")
            #expect(try first.jsonObject()["outcome"] as? String == "APPROVED")
            #expect(sandbox.activationRequestCount == 1)
            let shown = try harness.cli.run("config", "show")
            #expect(shown.stdout.contains("postgres://tokenctl@\(hosts)/tokenctl?sslmode=disable"), "\(shown.stdout)")

            // A command that writes refuses a URL that may reach a standby; one that reads uses it.
            let reading = ["TOKENCTL_DATABASE_URL": url + "&target_session_attrs=prefer-standby"]
            let refused = try harness.cli.run(
                ["wallet", "add", "--serial", "SNHOSTS9", "--device-account-id", "DAPL000000HOSTS9"],
                environment: reading)
            #expect(refused.status == 78)
            #expect(refused.stderr.contains("target_session_attrs=prefer-standby"), "\(refused.stderr)")
            #expect(refused.stderr.contains("config.invalidValue"), "\(refused.stderr)")
            let listed = try harness.cli.run(["wallet", "list", "--json"], environment: reading)
            #expect(listed.status == 0, "\(listed.stderr)")

            // db status: every host's role, the primary's synchronous standby, no warning.
            let status = try harness.cli.run("db", "status", "--json").jsonObject()
            #expect(Self.roles(status) == ["standby", "unreachable", "primary"], "\(status)")
            let standbys = try #require(status["standbys"] as? [[String: Any]])
            #expect(standbys.map { $0["name"] as? String } == ["standby1"])
            #expect(standbys.first?["syncState"] as? String == "sync")
            #expect(status["warning"] is NSNull)
            let checked = try harness.cli.run("config", "check")
            #expect(checked.status == 0 && !checked.stderr.contains("warning"), "\(checked.stderr)")

            // The primary dies as its machine would, and the standby is promoted.
            try fleet.killPrimary()
            try fleet.promote()
            // The promoted standby streams to none: db status warns, and does not fail.
            let after = try harness.cli.run("db", "status")
            #expect(after.status == 0, "\(after.stderr)")
            #expect(after.stdout.contains("host:     127.0.0.1:\(standby) primary"), "\(after.stdout)")
            #expect(after.stdout.contains("host:     127.0.0.1:\(primary) unreachable: "), "\(after.stdout)")
            #expect(
                after.stdout.contains(
                    "warning:  a failover may lose committed attempts: exactly-once across a failover needs a synchronous standby"
                ), "\(after.stdout)")
            // config check warns the same, and passes.
            let warned = try harness.cli.run("config", "check")
            #expect(warned.status == 0, "\(warned.stderr)")
            #expect(
                warned.stderr.contains(
                    "warning: database: a failover may lose committed attempts: exactly-once across a failover needs a synchronous standby"
                ), "\(warned.stderr)")
            try harness.add("SNHOSTS2", "DAPL000000HOSTS2")
            let second = try harness.activate("SNHOSTS2")
            #expect(second.status == 0, "\(second.stderr)")
            #expect(sandbox.activationRequestCount == 2)
            // What the old primary committed is on the new one: the first activation's audit too.
            #expect(try harness.auditEntries().count == 2)
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }

    /// The roles of `db status --json`'s hosts, in the URL's order.
    static func roles(_ status: [String: Any]) -> [String] {
        (status["hosts"] as? [[String: Any]] ?? []).compactMap { $0["role"] as? String }
    }
}

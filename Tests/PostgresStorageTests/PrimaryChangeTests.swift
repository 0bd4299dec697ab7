import Foundation
import Logging
import TestSupport
import Testing
import WalletModel

@testable import PostgresStorage

/// An open store on a URL of several hosts follows the primary through a failover, without
/// being opened again (DESIGN §10): a call that meets the dead primary fails only as a lost
/// or unreachable connection, and the store's pool moves to the promoted standby.
@Suite struct PrimaryChangeTests {
    @Test func anOpenStoreFollowsThePrimaryToThePromotedStandby() async throws {
        let fleet = try Fleet.start("primary-test")
        defer { fleet.remove() }
        let url = try PostgresURL(parsing: fleet.url())
        var options = PostgresOptions(
            endpoints: url.endpoints, user: url.user, database: url.database, tls: .disable,
            password: TestPostgres.password, hostID: "primary-change-test")
        options.connectTimeoutMilliseconds = 30_000
        let logger = Logger(label: "test")
        _ = try await PostgresDriver(options: options).migrate(logger: logger)
        let store = try await PostgresStore(options: options, logger: logger)
        try await withTeardown({ await store.close() }) {
            #expect(store.pool.endpoint == url.endpoints[0])
            _ = try await store.insertPass(PassRecord(serialNumber: "SNPRIMARY1", deviceAccountIdentifier: "DAPL1"))

            try fleet.killPrimary()
            try fleet.promote()
            var found: [PassRecord]?
            for _ in 0..<5 where found == nil {
                do {
                    found = try await store.passes(matching: PassQuery(serialNumber: "SNPRIMARY1"))
                } catch let error as StorageError where error.isConnectionFailure {
                    continue
                }
            }
            // Committed on the old primary with a synchronous standby: on the new one.
            #expect(found?.map(\.deviceAccountIdentifier) == ["DAPL1"])
            #expect(store.pool.endpoint == url.endpoints[1])
            #expect(store.connectionFigures.primaryChanges == 1)
            #expect(store.connectionFigures.reconnected == 1)
            #expect(
                try await store.insertPass(PassRecord(serialNumber: "SNPRIMARY2", deviceAccountIdentifier: "DAPL2"))
                    == .inserted)
        }
    }
}

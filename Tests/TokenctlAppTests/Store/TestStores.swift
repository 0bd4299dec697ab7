import Foundation
import Logging
import PostgresStorage
import Storage
import Testing
import WalletModel

/// The two drivers of the store protocol, each on a real database: a SQLite file in a
/// temporary directory, or a new database on the test PostgreSQL server (`make test`).
enum Driver: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// A new, empty database of this kind, with its schema. A PostgreSQL database is created
    /// on a thread of its own (`createdb` runs as a process the test waits for).
    func make(in directory: TemporaryDirectory, name: String = "store") async throws -> any StoreDriver {
        let driver: any StoreDriver
        switch self {
        case .sqlite:
            driver = SQLiteDriver(options: StoreOptions(path: directory.file(name + ".sqlite")))
        case .postgres:
            let database = try await Threads.run { try TestPostgres.makeDatabase() }
            let url = try PostgresURL(parsing: database.url)
            driver = PostgresDriver(
                options: PostgresOptions(
                    host: url.host, port: url.port, user: url.user, database: url.database, tls: url.tls,
                    password: TestPostgres.password, hostID: "contract-test", leaseMilliseconds: 60_000
                ))
        }
        _ = try await driver.migrate(logger: Self.logger)
        return driver
    }

    static let logger = Logger(label: "test")
}

extension StoreDriver {
    /// Runs `body` on the opened store.
    func with<T>(_ body: (any TokenStore) async throws -> T) async throws -> T {
        try await using(logger: Driver.logger, body)
    }
}

/// Audit rows and steps as an activation writes them.
enum Steps {
    static let deeplinkHash = String(repeating: "ab", count: 32)

    static func row(_ event: AuditRow.Event, attemptID: Int64, record: PassRecord, outcome: String? = nil) -> AuditRow {
        let owner = ProcessIdentity.current
        return AuditRow(
            attemptID: attemptID, event: event, at: Timestamp.now(), requestID: "request-\(attemptID)",
            serialNumber: record.serialNumber, passTypeIdentifier: record.passTypeIdentifier,
            tokenUniqueReference: record.deviceAccountIdentifier, device: record.device, deeplinkHash: deeplinkHash,
            ownerPID: event == .started ? owner.pid : nil, ownerStart: event == .started ? owner.start : nil,
            outcome: outcome
        )
    }

    /// The step that starts an attempt on `record`: its "started" row, the pass `activating`.
    static func started(_ record: PassRecord, attemptID: Int64) -> AttemptWrite {
        AttemptWrite(
            kind: .started, attemptID: attemptID, rows: [row(.started, attemptID: attemptID, record: record)],
            move: .init(record, to: .activating), closing: nil)
    }

    /// The step that finishes it with `outcome`, moving the pass to `state`.
    static func finished(_ record: PassRecord, attemptID: Int64, outcome: String, state: PassState) -> AttemptWrite {
        AttemptWrite(
            kind: .finished, attemptID: attemptID,
            rows: [row(.finished, attemptID: attemptID, record: record, outcome: outcome)],
            move: .init(record, to: state), closing: nil)
    }
}

extension PassRecord {
    static func sample(
        _ serial: String, account: String? = nil, device: String? = nil, state: PassState = .requiresActivation
    ) -> PassRecord {
        PassRecord(
            serialNumber: serial, deviceAccountIdentifier: account ?? "DAPL" + serial, state: state, device: device)
    }
}

import Foundation
import HexCoding
import Synchronization
import Testing
import TokenActivation
import TokenctlApp
import TransparencyLog
import WalletModel

/// The store protocol's contract, one body per promise run against both drivers: the
/// SQLite file and a PostgreSQL database on the test server.
@Suite struct StoreContractTests {
    let directory = TemporaryDirectory()

    // MARK: Passes

    /// Given an empty wallet, an insert is told apart from a duplicate and from a conflict
    /// on the device label, and each query narrows as it says.
    @Test(arguments: Driver.allCases)
    func passesAreInsertedQueriedAndRemoved(_ driver: Driver) async throws {
        do {
            let store = try await driver.make(in: directory)
            try await store.with { store in
                let phone = PassRecord.sample("SN1", device: "iPhone")
                let watch = PassRecord.sample("SN1", account: "DAPLWATCH", device: "Watch")
                await #expect(try store.insertPass(phone) == .inserted)
                await #expect(try store.insertPass(watch) == .inserted)
                await #expect(try store.insertPass(phone) == .duplicate)
                await #expect(try store.insertPass(.sample("SN1", account: "DAPLOTHER", device: "iPhone")) == .conflict)
                await #expect(try store.insertPass(.sample("SN2", state: .activated)) == .inserted)

                await #expect(try store.passes(matching: PassQuery(serialNumber: "SN1")) == [phone, watch])
                await #expect(try store.passes(matching: PassQuery(serialNumber: "SN1", device: "Watch")) == [watch])
                await #expect(
                    try store.passes(matching: PassQuery(serialNumber: "SN1", passTypeIdentifier: "other")).isEmpty)
                await #expect(try store.passes(matching: PassQuery(serialNumber: "SN9")).isEmpty)

                var all: [String] = []
                try await store.forEachPass(state: nil) { all.append($0.deviceAccountIdentifier) }
                #expect(all == ["DAPLSN1", "DAPLWATCH", "DAPLSN2"])
                var activated: [PassRecord] = []
                try await store.forEachPass(state: .activated) { activated.append($0) }
                #expect(activated.map(\.serialNumber) == ["SN2"])

                let removed = try await store.removePass(matching: PassQuery(serialNumber: "SN1")) { records in
                    #expect(records == [phone, watch])
                    return records[1]
                }
                #expect(removed == watch)
                await #expect(try store.passes(matching: PassQuery(serialNumber: "SN1")) == [phone])
                await #expect(try store.counts() == (passes: 2, auditRows: 0))
            }
        }
    }

    /// A removal whose choice throws removes nothing.
    @Test(arguments: Driver.allCases)
    func aRefusedRemovalRemovesNothing(_ driver: Driver) async throws {
        do {
            struct Refused: Error {}
            let store = try await driver.make(in: directory)
            try await store.with { store in
                _ = try await store.insertPass(.sample("SN1"))
                await #expect(throws: Refused.self) {
                    try await store.removePass(matching: PassQuery(serialNumber: "SN1")) { _ in throw Refused() }
                }
                #expect(try await store.passes(matching: PassQuery(serialNumber: "SN1")).count == 1)
            }
        }
    }

    /// A stream reads page after page (SQLite) or fetch after fetch (PostgreSQL): every
    /// record once, in serial order, the state filter holding across the pages.
    @Test(arguments: Driver.allCases)
    func aStreamCrossesItsPages(_ driver: Driver) async throws {
        let store = try await driver.make(in: directory)
        try await store.with { store in
            let count = 4_007  // more than two of SQLite's pages of 2,000
            let rows = (0..<count).map { index in
                Self.fields(String(format: "SN%06d", index), state: index % 3 == 0 ? .activated : nil)
            }
            #expect(
                try await Self.importing(Self.reading(rows, canReadAgain: false), into: store)
                    == .imported(inserted: count, updated: 0, keptStates: 0))
            var serials: [String] = []
            try await store.forEachPass(state: nil) { serials.append($0.serialNumber) }
            #expect(serials == rows.map(\.serialNumber))
            var activated: [String] = []
            try await store.forEachPass(state: .activated) { activated.append($0.serialNumber) }
            #expect(activated == rows.filter { $0.state == .activated }.map(\.serialNumber))
        }
    }

    // MARK: Import

    /// An import upserts: new rows inserted, changed ones updated, and a stored `activated`
    /// state kept against the file unless overwriting is asked for.
    @Test(arguments: Driver.allCases)
    func anImportMergesAndKeepsActivatedStates(_ driver: Driver) async throws {
        do {
            let store = try await driver.make(in: directory)
            try await store.with { store in
                _ = try await store.insertPass(.sample("SN1", state: .activated))
                _ = try await store.insertPass(.sample("SN2"))
                let rows = [
                    Self.fields("SN1", state: .requiresActivation), Self.fields("SN2", device: "iPhone"),
                    Self.fields("SN3", state: .suspended),
                ]
                #expect(
                    try await Self.importing(Self.reading(rows, canReadAgain: false), into: store)
                        == .imported(inserted: 1, updated: 1, keptStates: 1))
                await #expect(try store.passes(matching: PassQuery(serialNumber: "SN1")).map(\.state) == [.activated])
                await #expect(try store.passes(matching: PassQuery(serialNumber: "SN2")).map(\.device) == ["iPhone"])
                await #expect(try store.passes(matching: PassQuery(serialNumber: "SN3")).map(\.state) == [.suspended])

                let overwrite = PassImport(
                    overwriteState: true, canReadAgain: false,
                    nextChunk: Self.reading([Self.fields("SN1", state: .requiresActivation)]))
                #expect(
                    try await Self.importing(overwrite, into: store)
                        == .imported(inserted: 0, updated: 1, keptStates: 0))
                await #expect(
                    try store.passes(matching: PassQuery(serialNumber: "SN1")).map(\.state) == [.requiresActivation])
            }
        }
    }

    /// Rows that bind one device label twice write nothing: the conflict names the later
    /// row's line, or (with an index built after the rows) the store asks to read again.
    @Test(arguments: Driver.allCases, [false, true])
    func anImportThatCollidesWritesNothing(_ driver: Driver, canReadAgain: Bool) async throws {
        do {
            let store = try await driver.make(in: directory)
            try await store.with { store in
                let rows = [
                    Self.fields("SN1", account: "A1", device: "iPhone"), Self.fields("SN2"),
                    Self.fields("SN1", account: "A2", device: "iPhone"),
                ]
                let result = try await Self.importing(Self.reading(rows, canReadAgain: canReadAgain), into: store)
                if case .indexRefused = result {
                    #expect(canReadAgain)
                } else {
                    #expect(result == .conflict(line: 3, rows[2]))
                }
                #expect(try await store.counts().passes == 0)
            }
        }
    }

    // MARK: Attempts and the audit

    /// An attempt started and finished through the ledger: the pass moves to `activating`
    /// and then `activated`, the open attempt is seen while it runs (its owner alive), and
    /// the audit holds one merged entry on a chain that verifies.
    @Test(arguments: Driver.allCases)
    func anAttemptIsGuardedAuditedAndChained(_ driver: Driver) async throws {
        let store = try await driver.make(in: directory)
        try await store.with { store in
            let record = PassRecord.sample("SN1")
            _ = try await store.insertPass(record)
            let ledger = store.ledger()
            let query = PassQuery(serialNumber: "SN1")
            let attemptID = try await ledger.begin(query) { resolved in
                #expect(resolved.records == [record])
                #expect(resolved.openAttempt == nil)
                return (resolved.attemptID, Steps.started(record, attemptID: resolved.attemptID))
            }
            #expect(attemptID >= 1)
            let during = try await ledger.resolve(query)
            #expect(during.records.map(\.state) == [.activating])
            #expect(during.openAttempt?.attemptID == attemptID)
            #expect(during.openAttempt?.ownerIsAlive == true)

            try await ledger.submit(
                Steps.finished(record, attemptID: attemptID, outcome: "APPROVED", state: .activated)
            ).result()
            let after = try await ledger.resolve(query)
            #expect(after.records.map(\.state) == [.activated])
            #expect(after.openAttempt == nil)
            await ledger.close()

            var entries: [AuditEntry] = []
            try await store.forEachAuditEntry(AuditFilter(serialNumber: "SN1")) { entries.append($0) }
            #expect(entries.map(\.id) == [attemptID])
            #expect(entries.first?.outcome == "APPROVED")
            #expect(entries.first?.tokenUniqueReference == record.deviceAccountIdentifier)
            var unfinished = 0
            try await store.forEachAuditEntry(AuditFilter(unfinished: true)) { _ in unfinished += 1 }
            #expect(unfinished == 0)
            let (rows, broken) = try await ChainCheck.verify(store.forEachAuditRow)
            #expect(rows == 2 && broken == nil)
        }
    }

    /// A page of the audit: the newest entries matching, older than an id, still oldest
    /// first, read from the end of the audit.
    @Test(arguments: Driver.allCases)
    func theNewestEntriesBeforeAnIdAreAPage(_ driver: Driver) async throws {
        let store = try await driver.make(in: directory)
        try await store.with { store in
            let records = (0..<6).map { PassRecord.sample("SN\($0)") }
            for record in records { _ = try await store.insertPass(record) }
            let ledger = store.ledger()
            var ids: [Int64] = []
            for (index, record) in records.enumerated() {
                let id = try await ledger.begin(PassQuery(serialNumber: record.serialNumber)) { resolved in
                    (resolved.attemptID, Steps.started(record, attemptID: resolved.attemptID))
                }
                let outcome = index % 2 == 0 ? "APPROVED" : "DECLINED"
                try await ledger.write(Steps.finished(record, attemptID: id, outcome: outcome, state: .activated))
                ids.append(id)
            }
            await ledger.close()
            func page(_ filter: AuditFilter) async throws -> [Int64] {
                var found: [Int64] = []
                try await store.forEachAuditEntry(filter) { found.append($0.id) }
                return found
            }
            await #expect(try page(AuditFilter(newest: 2)) == Array(ids[4...]))
            await #expect(try page(AuditFilter(before: ids[4], newest: 2)) == Array(ids[2..<4]))
            await #expect(try page(AuditFilter(before: ids[1], newest: 5)) == [ids[0]])
            await #expect(try page(AuditFilter(before: ids[3])) == Array(ids[..<3]))
            await #expect(try page(AuditFilter(newest: 100)) == ids)
            await #expect(try page(AuditFilter(newest: 0)).isEmpty)
            // The other conditions narrow first: the newest two approved.
            await #expect(try page(AuditFilter(outcome: "APPROVED", newest: 2)) == [ids[2], ids[4]])
        }
    }

    /// Many tasks on one ledger, each its own pass: every step is committed, the writes
    /// are grouped into no more transactions than steps, and the chain holds.
    @Test(arguments: Driver.allCases)
    func concurrentWorkersShareTheLedger(_ driver: Driver) async throws {
        let store = try await driver.make(in: directory)
        try await store.with { store in
            let records = (0..<40).map { PassRecord.sample("SN\($0)") }
            for record in records { _ = try await store.insertPass(record) }
            let ledger = store.ledger()
            let failures = Failures()
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for record in records[worker...].enumerated().filter({ $0.offset % 8 == 0 }).map(\.element) {
                            do {
                                let id = try await ledger.begin(PassQuery(serialNumber: record.serialNumber)) {
                                    resolved in
                                    (resolved.attemptID, Steps.started(record, attemptID: resolved.attemptID))
                                }
                                try await ledger.write(
                                    Steps.finished(
                                        record, attemptID: id, outcome: "DECLINED", state: .requiresActivation))
                            } catch {
                                failures.add("\(error)")
                            }
                        }
                    }
                }
            }
            await ledger.close()
            #expect(failures.all.isEmpty)
            let figures = ledger.figures
            #expect(figures.jobs == 80)
            #expect(figures.transactions <= figures.jobs)
            var ids = Set<Int64>()
            try await store.forEachAuditEntry(AuditFilter()) { entry in
                #expect(entry.outcome == "DECLINED")
                ids.insert(entry.id)
            }
            #expect(ids.count == 40)
            await #expect(try ChainCheck.verify(store.forEachAuditRow) == (80, nil))
        }
    }

    // MARK: Copy

    /// A database copied to the other driver and back holds the same records, the same
    /// audit rows with the same hashes, and the same deeplink hash key; a copy into a
    /// database that holds records is refused and writes nothing.
    @Test func aCopyThereAndBackKeepsEverything() async throws {
        let sqlite = try await Driver.sqlite.make(in: directory, name: "source")
        try await sqlite.with { store in
            for index in 0..<3 {
                _ = try await store.insertPass(.sample("SN\(index)", device: index == 0 ? "iPhone" : nil))
            }
            let ledger = store.ledger()
            let record = PassRecord.sample("SN1")
            let id = try await ledger.begin(PassQuery(serialNumber: "SN1")) {
                ($0.attemptID, Steps.started(record, attemptID: $0.attemptID))
            }
            try await ledger.write(Steps.finished(record, attemptID: id, outcome: "APPROVED", state: .activated))
            await ledger.close()
        }
        // A checkpoint of the two rows and a witness's cosignature on it go along.
        let signer = try NoteSigner.generate(name: "bank.example/tokenctl-audit")
        let signed = try await sqlite.with { store in
            try await TransparencyLog.checkpoint(in: store, origin: signer.name, signer: signer)
        }
        let witness = try Cosignature.Signer.generate(name: "witness.example/w1")
        let cosignature = try witness.cosign(signed.checkpoint.text, time: 1)
        try await sqlite.with { store in
            try await store.storeCosignature(
                StoredCosignature(
                    origin: signer.name, size: 2, witness: witness.verifier.verifierKey,
                    line: "— \(cosignature.name) \(cosignature.base64)", time: 1))
        }
        // A copy blocks its thread on the database: off the cooperative pool.
        do {
            let postgres = try await Driver.postgres.make(in: directory)
            let there = try await DatabaseCopy(from: sqlite, to: postgres, logger: Driver.logger).run()
            #expect(
                (there.passes, there.auditRows, there.verifiedRows, there.checkpoints, there.cosignatures) == (
                    3, 2, 2, 1, 1
                ))
            #expect(
                try await postgres.with { try await TransparencyLog.checkpoint(size: 2, in: $0).note } == signed.note
                    + "— \(cosignature.name) \(cosignature.base64)\n")

            let back = try await Driver.sqlite.make(in: directory, name: "back")
            _ = try await DatabaseCopy(from: postgres, to: back, logger: Driver.logger).run()
            for copy in [postgres, back] {
                await #expect(try Self.contents(copy) == Self.contents(sqlite))
            }
            await #expect(throws: StorageError.self) {
                try await DatabaseCopy(from: sqlite, to: postgres, logger: Driver.logger).run()
            }
            #expect(try await postgres.with { try await $0.counts() } == (passes: 3, auditRows: 2))
        }
    }

    // MARK: Helpers

    static func fields(
        _ serial: String, account: String? = nil, state: PassState? = nil, device: String? = nil
    ) -> ValidatedPassFields {
        ValidatedPassFields(
            serialNumber: serial, deviceAccountIdentifier: account ?? "DAPL" + serial,
            passTypeIdentifier: PassRecord.defaultPassType,
            state: state, device: device, cardSuffix: nil
        )
    }

    /// An import, awaited.
    static func importing(_ rows: PassImport, into store: any TokenStore) async throws -> PassImportResult {
        try await store.importPasses(rows)
    }

    static func reading(_ rows: [ValidatedPassFields], canReadAgain: Bool) -> PassImport {
        PassImport(overwriteState: false, canReadAgain: canReadAgain, nextChunk: reading(rows))
    }

    /// The rows in chunks of two, numbered from line 1: several chunks, as a file gives them.
    static func reading(_ rows: [ValidatedPassFields]) -> @Sendable () async throws -> [ImportedRow]? {
        let read = Counter()
        return {
            read.next.withLock { index in
                guard index < rows.count else { return nil }
                let end = min(index + 2, rows.count)
                defer { index = end }
                return (index..<end).map { ($0 + 1, rows[$0]) }
            }
        }
    }

    /// The rows an import has read.
    private final class Counter: Sendable {
        let next = Mutex(0)
    }

    /// Everything a copy moves, comparable.
    static func contents(_ driver: any StoreDriver) async throws -> [String] {
        try await driver.with { store in
            var lines: [String] = []
            try await store.forEachPass(state: nil) { lines.append("\($0)") }
            try await store.forEachAuditRow {
                lines.append("\($0.seq) \($0.previousHash) \($0.hash) \(String(describing: $0.content))")
            }
            lines.append(Hex.encode(try await store.deeplinkHashKey()))
            return lines
        }
    }

    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var messages: [String] = []
        func add(_ message: String) { lock.withLock { messages.append(message) } }
        var all: [String] { lock.withLock { messages } }
    }
}

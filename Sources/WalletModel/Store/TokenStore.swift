/// The database tokenctl keeps its wallet, audit, attempts and onboarding state in: one
/// protocol, one driver per database (SQLite in `Storage`, PostgreSQL in `PostgresStorage`),
/// opened by a ``StoreDriver``. Each method is one intent that keeps its invariants inside
/// its own transaction; no database handle reaches the domain.
public protocol TokenStore: StateDatabase, TransparencyLogStore, Sendable {
    // MARK: Passes

    /// The records of `query`, in serial order (empty when none).
    func passes(matching query: PassQuery) async throws -> [PassRecord]

    /// Inserts a new record, or says what collided.
    func insertPass(_ record: PassRecord) async throws -> PassInsertion

    /// Removes the record `choose` picks among those of `query`, in one transaction with
    /// them locked against other writers.
    func removePass(
        matching query: PassQuery, choose: @escaping @Sendable ([PassRecord]) throws -> PassRecord
    ) async throws -> PassRecord

    /// Streams the records (or those in one state) in serial order, a page at a time, without
    /// loading them all; `body` runs in the caller's task.
    func forEachPass(state: PassState?, _ body: (PassRecord) throws -> Void) async throws

    /// The records left `activating` (an attempt in flight, or one whose owner died), read
    /// through an index of their own: start-up recovery looks at these only.
    func activatingPasses() async throws -> [PassRecord]

    /// Upserts the rows of an import in one transaction: all of them, or none.
    func importPasses(_ rows: PassImport) async throws -> PassImportResult

    // MARK: Audit

    /// The key of the deeplink hash, random and made with the database.
    func deeplinkHashKey() async throws -> [UInt8]

    /// Streams the attempts matching `filter` (their "started" and "finished" rows merged),
    /// oldest first.
    func forEachAuditEntry(_ filter: AuditFilter, _ body: (AuditEntry) throws -> Void) async throws

    /// Streams the audit's rows in chain order.
    func forEachAuditRow(_ body: (StoredAuditRow) throws -> Void) async throws

    // MARK: Schema

    /// Where the schema stands, read on this open database's own connections and awaited on
    /// the driver's executor (a health check asks it often; ``StoreDriver/status(logger:)``
    /// opens the database to answer).
    func databaseStatus() async throws -> DatabaseStatus

    /// What this open database's connections went through (a file has none to lose).
    var connectionFigures: ConnectionFigures { get }

    // MARK: Attempts

    /// The attempts' reads and writes for an activation session: the writes of workers
    /// that write at once are grouped (``WriteGroups``); ``AttemptLedger/close()`` writes
    /// what is still queued.
    func ledger() -> any AttemptLedger

    // MARK: Copy

    /// The records and audit rows held (what a copy from this database must move).
    func counts() async throws -> (passes: Int, auditRows: Int)

    /// This database as a copy's source (`tokenctl db copy`): its records and audit rows read
    /// `pageSize` at a time, each page one awaited read, pulled by the target's load inside
    /// its own transaction.
    func copySource(pageSize: Int) async throws -> StoreCopy

    /// Loads a whole database (`tokenctl db copy`) into this empty one, in one transaction:
    /// the records, the audit rows with their sequence numbers and hashes (each checked as
    /// it is written), the deeplink hash key, and the onboarding state read from `state`.
    /// - Throws: `storage.targetNotEmpty` when this database holds any of them,
    ///   `audit.chainBroken` at a row that does not chain (nothing is written then).
    func load(_ copy: StoreCopy) async throws -> CopyCounts
}

/// What inserting a record met.
public enum PassInsertion: Sendable, Equatable {
    case inserted
    /// The same (pass type, serial, device account id) is stored.
    case duplicate
    /// Another record holds the (pass type, serial, device label).
    case conflict
}

/// The rows of an import, as the store pulls them.
public struct PassImport: Sendable {
    /// Let a row's state move an activated or activating pass back (by default such a state
    /// is kept and counted).
    public var overwriteState: Bool
    /// The input can be read again: a store may then build an index once after the rows
    /// instead of row by row, and answer ``PassImportResult/indexRefused`` for a second,
    /// row-by-row pass that names the refused line.
    public var canReadAgain: Bool
    /// The next validated rows, in input order, with their lines; nil after the last.
    public var nextChunk: @Sendable () async throws -> [ImportedRow]?

    public init(
        overwriteState: Bool, canReadAgain: Bool, nextChunk: @escaping @Sendable () async throws -> [ImportedRow]?
    ) {
        self.overwriteState = overwriteState
        self.canReadAgain = canReadAgain
        self.nextChunk = nextChunk
    }
}

/// One row of an import: its line in the input and its validated fields.
public typealias ImportedRow = (line: Int, fields: ValidatedPassFields)

/// What an import did; nothing was written unless it is ``imported(inserted:updated:keptStates:)``.
public enum PassImportResult: Sendable, Equatable {
    /// Rows that created a record, rows that changed one, and stored `activated` /
    /// `activating` states kept against the file.
    case imported(inserted: Int, updated: Int, keptStates: Int)
    /// The row on this line binds a device label another record holds.
    case conflict(line: Int, ValidatedPassFields)
    /// The index built after the rows refused them: read the input again without ``PassImport/canReadAgain``.
    case indexRefused
}

/// A source database's content, as ``TokenStore/load(_:)`` takes it.
public struct StoreCopy {
    public var passes: PageReader<PassRecord>
    public var auditRows: PageReader<StoredAuditRow>
    public var deeplinkHashKey: [UInt8]
    /// The onboarding state's tables are read from here.
    public var state: any StateDatabase

    public init(
        passes: PageReader<PassRecord>, auditRows: PageReader<StoredAuditRow>, deeplinkHashKey: [UInt8],
        state: any StateDatabase
    ) {
        self.passes = passes
        self.auditRows = auditRows
        self.deeplinkHashKey = deeplinkHashKey
        self.state = state
    }
}

/// What a copy moved.
public struct CopyCounts: Sendable, Equatable {
    public var passes: Int
    public var auditRows: Int
    /// Rows of the onboarding core's state (device activation, process, login user, verification).
    public var stateRows: Int

    public init(passes: Int, auditRows: Int, stateRows: Int) {
        self.passes = passes
        self.auditRows = auditRows
        self.stateRows = stateRows
    }
}

extension ChainCheck {
    /// Checks a row a copy is about to write.
    /// - Throws: ``AuditError`` `chainBroken` naming the row, with "nothing was copied".
    public mutating func checkCopied(_ row: StoredAuditRow) throws -> AuditRow {
        if let broken = check(row) {
            throw AuditError.chainBroken(
                BrokenRow(
                    seq: broken.seq, entryID: broken.entryID, event: broken.event,
                    reason: broken.reason + " in the source; nothing was copied"))
        }
        // A row the check passed has content.
        return row.content!
    }
}

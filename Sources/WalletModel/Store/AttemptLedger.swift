/// The database side of activation attempts: it reads what an activation asks about and
/// writes the rows and state changes it names, keeping the in-flight guard; it decides
/// nothing. SQLite writes through a group committer in one process's transactions;
/// PostgreSQL, shared by many hosts, through leases and a server-side append.
public protocol AttemptLedger: Sendable {
    /// The records of `query` and the attempt open on them, for a dry run: reads only.
    func resolve(_ query: PassQuery) async throws -> ResolvedPasses

    /// Reads the records of `query`, lets `decide` answer what to write, and writes it, all
    /// at once: no other process or host changes the records in between. `decide` may run
    /// more than once (when another host got there first, it decides again on what that
    /// host left).
    /// - Returns: what `decide` returned last.
    func begin<T: Sendable>(
        _ query: PassQuery, decide: @escaping @Sendable (ResolvedPasses) -> (T, AttemptWrite?)
    ) async throws -> T

    /// Writes a later step of the attempt and waits until it is committed.
    func write(_ step: AttemptWrite) async throws

    /// Queues a write and returns at once. It starts no commit of its own: it is committed
    /// with the next write, or alone once its result is awaited, and before any write queued
    /// later returns.
    func submit(_ step: AttemptWrite) -> PendingWrite

    /// Transactions and steps written so far (the batch summary's figures).
    var figures: (transactions: Int, jobs: Int) { get }

    /// Writes what is still queued.
    func close() async
}

/// What a ledger read for one attempt: the records of its query, the attempt still open on
/// the one marked `activating` (if any), and the id this attempt is audited under.
public struct ResolvedPasses: Sendable, Equatable {
    public var records: [PassRecord]
    public var openAttempt: OpenAttempt?
    public var attemptID: Int64

    public init(records: [PassRecord], openAttempt: OpenAttempt?, attemptID: Int64) {
        self.records = records
        self.openAttempt = openAttempt
        self.attemptID = attemptID
    }
}

/// An unfinished attempt on a pass found in the audit.
public struct OpenAttempt: Sendable, Equatable {
    public var attemptID: Int64
    public var requestID: String
    public var deeplinkHash: String
    /// Whether the process (or host) that started it still runs.
    public var ownerIsAlive: Bool

    public init(attemptID: Int64, requestID: String, deeplinkHash: String, ownerIsAlive: Bool) {
        self.attemptID = attemptID
        self.requestID = requestID
        self.deeplinkHash = deeplinkHash
        self.ownerIsAlive = ownerIsAlive
    }
}

/// One step of an attempt as the database keeps it: audit rows appended in order, then the
/// pass's state moved, with the in-flight guard taken or released.
public struct AttemptWrite: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The attempt starts: its pass is marked `activating` and guarded for this process.
        case started
        /// The attempt is audited whole without sending.
        case stopped
        /// The attempt's answer: the guard is released, at most once.
        case finished
    }

    /// A pass moved to another state: the record as read, and the state it moves to.
    public struct StateMove: Sendable, Equatable {
        public var record: PassRecord
        public var to: PassState

        public init(_ record: PassRecord, to: PassState) {
            self.record = record
            self.to = to
        }
    }

    public var kind: Kind
    public var attemptID: Int64
    public var rows: [AuditRow]
    /// The pass the step moves, after its rows.
    public var move: StateMove?
    /// The interrupted attempt this step closes as UNKNOWN, whose guard goes with it.
    public var closing: Int64?

    public init(kind: Kind, attemptID: Int64, rows: [AuditRow], move: StateMove?, closing: Int64?) {
        self.kind = kind
        self.attemptID = attemptID
        self.rows = rows
        self.move = move
        self.closing = closing
    }

}

/// A queued write, awaited once.
public struct PendingWrite: Sendable {
    private let wait: @Sendable () async throws -> Void

    public init(wait: @escaping @Sendable () async throws -> Void) {
        self.wait = wait
    }

    /// Returns once the write is committed; throws if it failed.
    public func result() async throws {
        try await wait()
    }
}

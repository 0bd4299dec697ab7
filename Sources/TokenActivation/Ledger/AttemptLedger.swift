/// The database side of activation attempts, for ``Session``: SQLite through the group
/// committer (``SQLiteLedger``) or PostgreSQL shared by many hosts (``PostgresLedger``).
/// A ledger reads what the ``ActivationMachine`` asks about and writes the rows its actions
/// name; it decides nothing.
protocol AttemptLedger: Sendable {
    /// The key of the deeplink hash, made with the database.
    func deeplinkHashKey() throws -> [UInt8]

    /// The records of `query` and the attempt open on them, for a dry run: reads only.
    func resolve(_ query: PassQuery, attempt: Attempt) throws -> ActivationMachine.Event

    /// Reads the records of `query`, lets `decide` answer the machine's next action, and
    /// writes that action, all at once: no other process or host changes the records in
    /// between. `decide` may run more than once (when another host got there first, it
    /// decides again on what that host left).
    /// - Returns: what `decide` returned last, and the attempt id it was given.
    func begin<T>(
        _ query: PassQuery, attempt: Attempt,
        decide: @escaping (_ resolved: ActivationMachine.Event) -> (T, ActivationMachine.Action)
    ) throws -> (T, ActivationMachine.Action, attemptID: Int64)

    /// Writes a later action of the machine (started, stopped, finished) and waits until
    /// it is committed.
    func write(_ action: ActivationMachine.Action, attemptID: Int64, latency: Duration?, attempt: Attempt) throws

    /// Queues a write and returns at once; it is committed before any later write of the
    /// same thread returns.
    func submit(_ action: ActivationMachine.Action, attemptID: Int64, latency: Duration?, attempt: Attempt) -> PendingWrite

    /// Transactions and steps written so far (the batch summary's figures).
    var figures: (transactions: Int, jobs: Int) { get }

    /// Stops any writer thread once what is queued is written.
    func close()
}

/// A queued write, waited for once.
struct PendingWrite: @unchecked Sendable {
    private let wait: () throws -> Void

    init(wait: @escaping () throws -> Void) {
        self.wait = wait
    }

    /// Blocks until the write is committed; throws if it failed.
    func result() throws {
        try wait()
    }
}

/// The resident service's Idempotency-Keys (`idempotency_key`). A key's first request
/// inserts its row with no answer and the request id its attempt will be audited under; the
/// attempt's "started" row carries that id, so a repeat finds the attempt its key started in
/// the audit even when the answer was never stored. The answer is written when the request
/// finishes; rows older than the retention are deleted. Each call runs on the driver's own
/// executor (GRDB's writer, PostgreSQL's connections), never on the caller's thread.
public protocol IdempotencyKeyRecords: Sendable {
    /// Inserts `claim`'s row unless the key has one: what the key held.
    func claimIdempotencyKey(_ claim: IdempotencyKeyRow) async throws -> IdempotencyKeyClaim

    /// Moves `key`'s unanswered claim made at `claimedAt` to a new claim, at `now` for
    /// `requestID` by `owner`: only one of several repeats racing for it wins.
    /// - Returns: whether this caller moved it.
    func takeOverIdempotencyKey(
        _ key: String, claimedAt: Int64, now: Int64, requestID: String, serialNumber: String?, owner: String
    ) async throws -> Bool

    /// Stores the answer of a claimed key.
    func answerIdempotencyKey(_ key: String, status: Int, body: String) async throws

    /// Deletes a claim that has no answer (its request was refused before it ran).
    func releaseIdempotencyKey(_ key: String) async throws

    /// Gives up `key`'s unanswered claim for `requestID` and keeps the binding to its
    /// attempt: its request ended without an answer to keep (the database failed), so a
    /// repeat answers the attempt, or runs when none started, though the claim's process lives.
    func endIdempotencyClaim(_ key: String, requestID: String) async throws

    /// Deletes the keys claimed before `milliseconds`; how many.
    func purgeIdempotencyKeys(claimedBefore milliseconds: Int64) async throws -> Int
}

/// An `idempotency_key` row. `owner` is the process that claimed it (`HOST PID START`), or
/// ``IdempotencyKeyRow/ended`` once its request ended unanswered;
/// `serialNumber` nil for a request whose deeplink did not parse.
public struct IdempotencyKeyRow: Sendable, Equatable {
    /// The owner of a claim whose request ended without an answer to keep: no process holds it.
    public static let ended = ""

    public var key: String
    public var deeplinkHash: String
    public var createdMilliseconds: Int64
    public var requestID: String?
    public var serialNumber: String?
    public var owner: String?
    public var status: Int?
    public var answer: String?

    public init(
        key: String, deeplinkHash: String, createdMilliseconds: Int64, requestID: String?, serialNumber: String?,
        owner: String?,
        status: Int? = nil, answer: String? = nil
    ) {
        self.key = key
        self.deeplinkHash = deeplinkHash
        self.createdMilliseconds = createdMilliseconds
        self.requestID = requestID
        self.serialNumber = serialNumber
        self.owner = owner
        self.status = status
        self.answer = answer
    }
}

/// What claiming a key found.
public enum IdempotencyKeyClaim: Sendable, Equatable {
    /// The key was new: the claim's row is in.
    case inserted
    /// The key's row, as another request left it.
    case held(IdempotencyKeyRow)
    /// The key's row was there, then purged before it could be read.
    case vanished
}

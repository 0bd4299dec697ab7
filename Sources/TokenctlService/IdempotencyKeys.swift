import Logging
import ServiceAPI
import ServiceLifecycle
import TokenActivation
import WalletModel

/// Idempotency-Key answers kept in the database (both backends, ``IdempotencyKeyRecords``), so a
/// repeat finds them across restarts and across the service processes sharing it.
///
/// A key stands for one attempt: its row is inserted with the request id the attempt will
/// be audited under, before the attempt starts, and the attempt's "started" row carries
/// that id. A repeat that finds no stored answer therefore finds the attempt in the audit:
/// finished (its outcome is the answer), open (in flight, or closed as interrupted once its
/// owner is known to be gone), or never started, the only case that may run again.
struct IdempotencyKeys: Sendable {
    /// What a key's row says when a request arrives with it.
    enum Claim: Equatable {
        /// The key is new: this request runs under `requestID` and its answer is stored.
        case claimed(requestID: String)
        /// The same key and request answered before: the stored answer.
        case replay(status: Int, body: String)
        /// The key was first used with another request.
        case mismatch
        /// The key's first request has no stored answer: running, or stopped before its
        /// answer was stored. `requestID` and `serialNumber` name its attempt (nil for a
        /// row written before keys were bound to attempts, or a deeplink that did not parse);
        /// `createdMilliseconds` is when it was claimed or last taken over, `owner` the
        /// process that did (`HOST PID START`).
        case unanswered(requestID: String?, serialNumber: String?, createdMilliseconds: Int64, owner: String?)
    }

    let database: any IdempotencyKeyRecords
    let hasher: DeeplinkHasher
    /// This host's id (`database.host-id`): a claim of a process on this host is abandoned
    /// as soon as that process is gone.
    let hostID: String
    /// A claim older than this whose request started no attempt was left by a process that
    /// died before it started one: it may be taken over.
    let abandonedAfterMilliseconds: Int64
    let retentionMilliseconds: Int64
    let clock: @Sendable () -> Timestamp

    /// Claims `key` for `request`, or reads what it holds.
    /// - Parameter serialNumber: the serial the request's deeplink names, nil when it does not parse.
    func claim(key: String, request: ActivationRequest, serialNumber: String?) async throws -> Claim {
        let hash = hasher.hash(request.idempotencyText)
        let now = clock().milliseconds
        let requestID = ActivationRuntime.makeRequestID()
        let claim = IdempotencyKeyRow(
            key: key, deeplinkHash: hash, createdMilliseconds: now, requestID: requestID, serialNumber: serialNumber,
            owner: owner)
        switch try await database.claimIdempotencyKey(claim) {
        case .inserted:
            return .claimed(requestID: requestID)
        case .vanished:
            // Purged between the two statements: as good as in flight; the client repeats.
            return .unanswered(requestID: nil, serialNumber: nil, createdMilliseconds: now, owner: nil)
        case .held(let row):
            guard row.deeplinkHash == hash else { return .mismatch }
            // This request's own claim, committed before its answer was lost and sent again.
            if row.requestID == requestID, row.owner == owner, row.answer == nil {
                return .claimed(requestID: requestID)
            }
            if let answer = row.answer, let status = row.status {
                return .replay(status: status, body: answer)
            }
            return .unanswered(
                requestID: row.requestID, serialNumber: row.serialNumber, createdMilliseconds: row.createdMilliseconds,
                owner: row.owner)
        }
    }

    /// This process, as a claim records it.
    var owner: String {
        let process = ProcessIdentity.current
        return "\(hostID) \(process.pid) \(process.start)"
    }

    /// Whether an unanswered claim may be taken over: its request ended unanswered, its process on this host is gone, or
    /// (another host's, or one written before claims named their process) it is older than
    /// the longest an attempt can wait and run.
    func isAbandoned(createdMilliseconds: Int64, owner: String?) -> Bool {
        if owner == IdempotencyKeyRow.ended { return true }
        if let owner, owner.hasPrefix(hostID + " ") {
            let fields = owner.dropFirst(hostID.count + 1).split(separator: " ", maxSplits: 1)
            if fields.count == 2, let pid = Int32(fields[0]) {
                return !ProcessIdentity(pid: pid, start: String(fields[1])).isAlive
            }
        }
        return clock().milliseconds - createdMilliseconds > abandonedAfterMilliseconds
    }

    /// Takes over a claim whose request started no attempt, for a request that runs under
    /// `requestID`: only one of several repeats racing for it wins.
    /// - Returns: whether this caller took it.
    func takeOver(
        key: String, createdMilliseconds: Int64, requestID: String, serialNumber: String?
    ) async throws -> Bool {
        try await database.takeOverIdempotencyKey(
            key, claimedAt: createdMilliseconds, now: clock().milliseconds, requestID: requestID,
            serialNumber: serialNumber, owner: owner
        )
    }

    /// Stores the answer of a claimed key.
    func store(key: String, status: Int, body: String) async throws {
        try await database.answerIdempotencyKey(key, status: status, body: body)
    }

    /// Gives up the claim of a request that ended without an answer to keep, its binding to
    /// `requestID`'s attempt kept.
    func end(key: String, requestID: String) async throws {
        try await database.endIdempotencyClaim(key, requestID: requestID)
    }

    /// Writes what a claim's request ended with.
    func settle(key: String, _ settlement: ClaimSettlement) async throws {
        switch settlement {
        case .answer(let status, let body): try await store(key: key, status: status, body: body)
        case .end(let requestID): try await end(key: key, requestID: requestID)
        }
    }

    /// Deletes the answers older than the retention.
    /// - Returns: the number deleted.
    @discardableResult
    func purge() async throws -> Int {
        try await database.purgeIdempotencyKeys(claimedBefore: clock().milliseconds - retentionMilliseconds)
    }
}

/// What a keyed request's claim must hold once its request ended: written at once, or, when
/// the database refuses it then (a failover), by the service once it accepts writes again,
/// so that no claim is left to a live owner whose request ended (DESIGN §10).
enum ClaimSettlement: Sendable, Equatable {
    /// The request's answer, replayed to every repeat.
    case answer(status: Int, body: String)
    /// No answer to keep (the database failed the request, or it was refused before it
    /// ran): a repeat answers the attempt `requestID` started, or runs when none did.
    case end(requestID: String)
}

/// Deletes Idempotency-Key answers past their retention, at start and every ten minutes.
struct IdempotencyPurge: Service, CustomStringConvertible {
    var description: String { "IdempotencyPurge" }

    let service: ActivationService
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let keys = service.idempotency
            do {
                let purged = try await keys.purge()
                if purged > 0 { logger.info("service.idempotencyPurged", metadata: ["keys": "\(purged)"]) }
            } catch {
                logger.warning("service.idempotencyPurgeFailed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(600)) }
        }
    }
}

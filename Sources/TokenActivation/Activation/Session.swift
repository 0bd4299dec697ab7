import ErrorCodes
import HTTPTransport
import Logging
import WalletModel

/// What one process shares across its activations: the database (through its
/// ``AttemptLedger``), the preflight result, and one TMP client per concurrent worker. It runs
/// each attempt's ``ActivationMachine`` by performing the actions the machine returns,
/// on the calling worker's thread from start to end: database steps, the request and the
/// answer cost no hop between threads.
struct Session: Sendable {
    let activator: Activator
    let ledger: any AttemptLedger
    private let clients: [Result<TMPClient, ActivationError>]
    private let shared: SharedTransport?
    private let deeplinkHasher: DeeplinkHasher

    /// The ledger is made last: a writer thread it starts is stopped by ``close()``.
    /// - Parameter checkingGates: false for a resident pipeline, which asks the user gates
    ///   before each activation instead of once.
    init(activator: Activator, store: any TokenStore, clients count: Int, checkingGates: Bool = true) async throws {
        self.activator = activator
        switch checkingGates ? await activator.preflight(store: store) : activator.headers() {
        case .failure(let error):
            clients = Array(repeating: .failure(error), count: count)
            shared = nil
        case .success(let headers):
            (clients, shared) = activator.makeClients(count: count, headers: headers)
        }
        do {
            deeplinkHasher = DeeplinkHasher(key: try store.deeplinkHashKey())
        } catch {
            shared?.shutdown()
            throw error
        }
        ledger = store.ledger(sharing: count > 1)
    }

    /// Why no activation of this session can be sent (the TMP credentials, the user
    /// check), if that is so.
    var unusable: ActivationError? {
        clients.lazy.compactMap(\.failure).first
    }

    /// Stops the database writer, and the shared transport's transfer thread if there is one.
    func close() {
        ledger.close()
        shared?.shutdown()
    }

    /// One activation on worker `index`'s connection. Blocks: call it on a worker thread
    /// (``ActivationWorkers``), never on the cooperative pool.
    /// - Parameters:
    ///   - refusal: a gate's refusal asked for this activation (a resident pipeline's).
    ///   - requestID: the id the attempt is audited under, when the caller chose it (an
    ///     Idempotency-Key's, stored with the key before the attempt starts); a new one otherwise.
    ///   - keepUnwritten: takes a "finished" write the database refused after TMP answered
    ///     (a full disk, a lost database), to be written once the database accepts writes
    ///     again; the result then reports TMP's answer with a warning. Without it, such a
    ///     failure is the result.
    func run(
        _ deeplink: Deeplink, text: String, device: String?, client index: Int, dryRun: Bool = false, refusal: ActivationError? = nil,
        requestID: String? = nil, keepUnwritten: ((AttemptWrite, any Error) -> Void)? = nil
    ) -> ActivationResult {
        run(
            deeplink, text: text, device: device, client: index, dryRun: dryRun, refusal: refusal, requestID: requestID,
            keepUnwritten: keepUnwritten, deferringFinish: false, settlePrevious: {}
        ).result
    }

    /// One activation of a batch line whose "finished" write is queued but not waited for:
    /// the worker goes on to its next line, whose first write is committed after it (see
    /// ``DeferredActivation``). A line then waits for one commit instead of two.
    ///
    /// - Parameter settlePrevious: called once, as soon as this line's first write is
    ///   committed (or, without one, before returning): the worker's previous line is then
    ///   committed whole and can be reported.
    func runDeferringFinish(_ deeplink: Deeplink, text: String, client index: Int, dryRun: Bool, settlePrevious: () -> Void) -> DeferredActivation {
        run(deeplink, text: text, device: nil, client: index, dryRun: dryRun, refusal: nil, requestID: nil, keepUnwritten: nil, deferringFinish: true, settlePrevious: settlePrevious)
    }

    private func run(
        _ deeplink: Deeplink, text: String, device: String?, client index: Int, dryRun: Bool,
        refusal: ActivationError?, requestID chosen: String?, keepUnwritten: ((AttemptWrite, any Error) -> Void)?, deferringFinish: Bool,
        settlePrevious: () -> Void
    ) -> DeferredActivation {
        var settled = false
        func settle() {
            if !settled {
                settled = true
                settlePrevious()
            }
        }
        defer { settle() }
        let prepared = clients[index]
        let requestID = chosen ?? Activator.makeRequestID()
        var machine = ActivationMachine(
            requestID: requestID, device: device, retry: activator.settings.tmp.retry,
            dryRunEndpoint: dryRun ? TMPClient.endpoint(baseURL: activator.settings.tmp.baseURL) : nil
        )
        let attempt = Attempt(
            deeplinkHash: deeplinkHasher.hash(text), serialNumber: deeplink.serialNumber,
            passTypeIdentifier: deeplink.passTypeIdentifier, device: device, requestID: requestID, clock: activator.clock
        )
        // The request id goes into each event's metadata, which is built only when the
        // level lets the event through (a logger's own metadata would be set on every line).
        let logger = activator.logger
        var attemptID: Int64 = 0
        var began: ContinuousClock.Instant?
        var finish: PendingWrite?
        var action = machine.handle(.parsed(.success(deeplink)))
        do {
            while true {
                switch action {
                case .checkUser:
                    action = machine.handle(.userCheckAnswered(refusal ?? prepared.failure))
                case .resolveRecords(let query) where machine.isDryRun:
                    action = machine.handle(.resolved(try ledger.resolve(query)))
                case .resolveRecords(let query):
                    let decided = machine
                    let committed = Result { try ledger.begin(query) { resolved in
                        var machine = decided
                        let action = machine.handle(.resolved(resolved))
                        let step = attempt.step(action, attemptID: resolved.attemptID, latency: nil)
                        return ((machine, action, resolved.attemptID), step)
                    } }
                    settle()
                    let (next, written, id) = try committed.get()
                    machine = next
                    attemptID = id
                    action = written.committedEvent.map { machine.handle($0) } ?? written
                case .writeFinished where deferringFinish:
                    let latency = began.map { ContinuousClock.now - $0 }
                    finish = attempt.step(action, attemptID: attemptID, latency: latency).map(ledger.submit)
                    action = machine.handle(.finishCommitted)
                case .writeStarted, .writeStopped, .writeFinished:
                    let latency = began.map { ContinuousClock.now - $0 }
                    if let step = attempt.step(action, attemptID: attemptID, latency: latency) {
                        do {
                            try ledger.write(step)
                        } catch where step.kind == .finished && keepUnwritten != nil {
                            // TMP answered (or was asked): the answer is reported as it came,
                            // never as "nothing was sent"; its audit row waits for the database.
                            keepUnwritten?(step, error)
                            let code = ActivationError.coded(error).code.rawValue
                            var result = machine.result
                            result.warnings.append(
                                "the answer could not be written to the audit yet (\(code)); it is kept and written as soon as the database accepts writes again, until then the pass stays activating"
                            )
                            logger.error("activation.finishNotWritten", metadata: ["request-id": "\(requestID)", "attempt": "\(attemptID)", "error": "\(code)"])
                            return DeferredActivation(result: result, finish: nil)
                        }
                    }
                    action = action.committedEvent.map { machine.handle($0) } ?? .stop(machine.result)
                case .send(let record, let delay):
                    if delay > .zero {
                        let sleep = activator.sleep
                        Blocking.wait { await sleep(delay) }
                    }
                    guard case .success(let client) = prepared else { return DeferredActivation(result: machine.result, finish: nil) }
                    logger.info("activation.sending", metadata: ["request-id": "\(requestID)", "serial": "\(Mask.identifier(record.serialNumber))", "attempt": "\(attemptID)"])
                    if began == nil { began = .now }
                    action = machine.handle(.tmpAnswered(client.send(tokenUniqueReference: record.deviceAccountIdentifier, requestID: requestID)))
                case .stop(let result):
                    logger.info("activation.finished", metadata: ["request-id": "\(requestID)", "outcome": "\(result.outcome.rawValue)", "error": "\(result.error?.code.rawValue ?? "-")"])
                    return DeferredActivation(result: result, finish: finish)
                }
            }
        } catch {
            return DeferredActivation(result: ActivationResult(outcome: .error, error: .coded(error)), finish: nil)
        }
    }
}

extension Result {
    /// The failure, if this is one.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A batch line's result while its "finished" write may still wait in the commit queue.
struct DeferredActivation {
    let result: ActivationResult
    /// The queued "finished" write, if there is one.
    let finish: PendingWrite?

    /// The line's result once its writes are committed: an error if the last one failed.
    func settled() -> ActivationResult {
        guard let finish else { return result }
        do {
            try finish.result()
            return result
        } catch {
            return ActivationResult(outcome: .error, error: .coded(error))
        }
    }
}

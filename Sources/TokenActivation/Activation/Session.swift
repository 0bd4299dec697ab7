import ErrorCodes
import HTTPTransport
import Logging
import TextFormats
import WalletModel

/// What one process shares across its activations: the database (through its
/// ``AttemptLedger``), the preflight result, and the TMP client its slots send on. It runs
/// each attempt's ``ActivationMachine`` by performing the actions the machine returns, in
/// the calling task: the database's steps and TMP's request are awaited, on the drivers'
/// and the transport's own executors.
struct Session: Sendable {
    let activator: Activator
    let ledger: any AttemptLedger
    private let client: Result<TMPClient, ActivationError>
    private let deeplinkHasher: DeeplinkHasher

    /// The ledger is made last: ``close()`` writes what it still holds.
    /// - Parameter checkingGates: false for a resident pipeline, which asks the user gates
    ///   before each activation instead of once.
    init(activator: Activator, store: any TokenStore, slots: Int, checkingGates: Bool = true) async throws {
        self.activator = activator
        client = (checkingGates ? await activator.preflight(store: store) : activator.headers()).flatMap {
            activator.makeClient(slots: slots, headers: $0)
        }
        deeplinkHasher = await DeeplinkHasher(key: try store.deeplinkHashKey())
        ledger = store.ledger()
    }

    /// Why no activation of this session can be sent (the TMP credentials, the user
    /// check), if that is so.
    var unusable: ActivationError? {
        client.failure
    }

    /// Writes what the ledger still holds.
    func close() async {
        await ledger.close()
    }

    /// One activation, in the runtime's slot the calling task holds.
    ///
    /// - Parameters:
    ///   - deferringFinish: queue the "finished" write without waiting for it (the result's
    ///     ``DeferredActivation/finish``): the slot's next activation's first write is
    ///     committed after it, and ``settle(_:keepUnwritten:)`` answers it then.
    ///   - keepUnwritten: takes a "finished" write the database refused after TMP answered
    ///     (a full disk, a lost database), to be written once the database accepts writes
    ///     again; the result then reports TMP's answer with a warning. Without it, such a
    ///     failure is the result.
    ///   - settlePrevious: called once, as soon as this activation's first write is
    ///     committed (or, without one, before returning): the slot's previous activation
    ///     is then committed whole and can be answered.
    func run(
        _ job: ActivationJob, deferringFinish: Bool,
        keepUnwritten: (@Sendable (AttemptWrite, any Error) -> Void)?, settlePrevious: () async -> Void
    ) async -> DeferredActivation {
        var settled = false
        let activation = await perform(
            job, deferringFinish: deferringFinish, keepUnwritten: keepUnwritten,
            settle: {
                if !settled {
                    settled = true
                    await settlePrevious()
                }
            })
        if !settled { await settlePrevious() }
        return activation
    }

    private func perform(
        _ job: ActivationJob, deferringFinish: Bool,
        keepUnwritten: (@Sendable (AttemptWrite, any Error) -> Void)?, settle: () async -> Void
    ) async -> DeferredActivation {
        let prepared = client
        let requestID = job.requestID ?? Activator.makeRequestID()
        var machine = ActivationMachine(
            requestID: requestID, device: job.device, retry: activator.settings.tmp.retry,
            dryRunEndpoint: job.dryRun ? TMPClient.endpoint(baseURL: activator.settings.tmp.baseURL) : nil
        )
        let attempt = Attempt(
            deeplinkHash: deeplinkHasher.hash(job.text), serialNumber: job.deeplink.serialNumber,
            passTypeIdentifier: job.deeplink.passTypeIdentifier, device: job.device, requestID: requestID,
            clock: activator.clock
        )
        // The request id goes into each event's metadata, which is built only when the
        // level lets the event through (a logger's own metadata would be set on every line).
        let logger = activator.logger
        var attemptID: Int64 = 0
        var began: ContinuousClock.Instant?
        var finish: DeferredActivation.Finish?
        var action = machine.handle(.parsed(.success(job.deeplink)))
        do {
            while true {
                switch action {
                case .checkUser:
                    action = machine.handle(.userCheckAnswered(job.refusal ?? prepared.failure))
                case .resolveRecords(let query) where machine.isDryRun:
                    action = machine.handle(.resolved(try await ledger.resolve(query)))
                case .resolveRecords(let query):
                    let decided = machine
                    let committed: Result<(ActivationMachine, ActivationMachine.Action, Int64), any Error>
                    do {
                        committed = .success(
                            try await ledger.begin(query) { resolved in
                                var machine = decided
                                let action = machine.handle(.resolved(resolved))
                                let step = attempt.step(action, attemptID: resolved.attemptID, latency: nil)
                                return ((machine, action, resolved.attemptID), step)
                            })
                    } catch {
                        committed = .failure(error)
                    }
                    await settle()
                    let (next, written, id) = try committed.get()
                    machine = next
                    attemptID = id
                    action = written.committedEvent.map { machine.handle($0) } ?? written
                case .writeFinished where deferringFinish:
                    let latency = began.map { ContinuousClock.now - $0 }
                    finish = attempt.step(action, attemptID: attemptID, latency: latency).map {
                        DeferredActivation.Finish(step: $0, write: ledger.submit($0))
                    }
                    action = machine.handle(.finishCommitted)
                case .writeStarted, .writeStopped, .writeFinished:
                    let latency = began.map { ContinuousClock.now - $0 }
                    if let step = attempt.step(action, attemptID: attemptID, latency: latency) {
                        do {
                            try await ledger.write(step)
                        } catch  where step.kind == .finished && keepUnwritten != nil {
                            return DeferredActivation(
                                result: unwritten(step, error, result: machine.result, keep: keepUnwritten!),
                                finish: nil)
                        }
                    }
                    action = action.committedEvent.map { machine.handle($0) } ?? .stop(machine.result)
                case .send(let record, let delay):
                    if delay > .zero {
                        await activator.sleep(delay)
                    }
                    guard case .success(let client) = prepared else {
                        return DeferredActivation(result: machine.result, finish: nil)
                    }
                    logger.info(
                        "activation.sending",
                        metadata: [
                            "request-id": "\(requestID)", "serial": "\(Mask.identifier(record.serialNumber))",
                            "attempt": "\(attemptID)",
                        ])
                    if began == nil { began = .now }
                    action = machine.handle(
                        .tmpAnswered(
                            await client.send(
                                tokenUniqueReference: record.deviceAccountIdentifier, requestID: requestID)))
                case .stop(let result):
                    logger.info(
                        "activation.finished",
                        metadata: [
                            "request-id": "\(requestID)", "outcome": "\(result.outcome.rawValue)",
                            "error": "\(result.error?.code.rawValue ?? "-")",
                        ])
                    return DeferredActivation(result: result, finish: finish)
                }
            }
        } catch {
            return DeferredActivation(result: ActivationResult(outcome: .error, error: .coded(error)), finish: nil)
        }
    }

    /// A deferred activation's result once its "finished" write is committed: an error if the
    /// write failed, or, with `keepUnwritten`, TMP's answer with a warning while the write waits.
    func settle(
        _ activation: DeferredActivation, keepUnwritten: (@Sendable (AttemptWrite, any Error) -> Void)?
    ) async -> ActivationResult {
        guard let finish = activation.finish else { return activation.result }
        do {
            try await finish.write.result()
            return activation.result
        } catch {
            guard let keepUnwritten else { return ActivationResult(outcome: .error, error: .coded(error)) }
            return unwritten(finish.step, error, result: activation.result, keep: keepUnwritten)
        }
    }

    /// TMP answered (or was asked): the answer is reported as it came, never as "nothing was
    /// sent"; its audit row waits for the database.
    private func unwritten(
        _ step: AttemptWrite, _ error: any Error, result: ActivationResult, keep: (AttemptWrite, any Error) -> Void
    ) -> ActivationResult {
        keep(step, error)
        let code = ActivationError.coded(error).code.rawValue
        var result = result
        result.warnings.append(
            "the answer could not be written to the audit yet (\(code)); it is kept and written as soon as the database accepts writes again, until then the pass stays activating"
        )
        activator.logger.error(
            "activation.finishNotWritten",
            metadata: ["request-id": "\(result.requestID ?? "-")", "attempt": "\(step.attemptID)", "error": "\(code)"])
        return result
    }
}

extension Result {
    /// The failure, if this is one.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// An activation's result while its "finished" write may still wait in the commit queue.
struct DeferredActivation: Sendable {
    /// A queued "finished" write.
    struct Finish: Sendable {
        let step: AttemptWrite
        let write: PendingWrite
    }

    let result: ActivationResult
    /// The queued "finished" write, if there is one.
    let finish: Finish?
}

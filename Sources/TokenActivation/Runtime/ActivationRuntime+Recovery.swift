import ErrorCodes
import Foundation
import TextFormats
import WalletModel

extension ActivationRuntime {
    /// The attempt audited under `requestID` on the pass `serialNumber`, if one started.
    public func attempt(serialNumber: String, requestID: String) async throws -> AuditEntry? {
        var found: AuditEntry?
        try await store.forEachAuditEntry(AuditFilter(serialNumber: serialNumber)) { entry in
            if entry.requestID == requestID { found = entry }
        }
        return found
    }

    /// Closes, as UNKNOWN `activation.interrupted`, every attempt left open by a process
    /// that is gone (on PostgreSQL, by a host whose lease has expired), and moves its pass
    /// back to `requiresActivation`; attempts whose owner still runs are left alone.
    /// - Parameter serialNumber: only this pass's attempts; every pass's when nil.
    /// - Returns: the attempts closed.
    @discardableResult
    public func closeInterrupted(serialNumber: String? = nil) async throws -> [Int64] {
        let ledger = session.ledger
        var closed: [Int64] = []
        var seen: Set<PassQuery> = []
        let activating = try await store.activatingPasses()
        for record in activating where serialNumber == nil || record.serialNumber == serialNumber {
            let query = PassQuery(
                serialNumber: record.serialNumber, passTypeIdentifier: record.passTypeIdentifier, device: record.device)
            guard seen.insert(query).inserted else { continue }
            let resolved = try await ledger.resolve(query)
            guard let open = resolved.openAttempt, !open.ownerIsAlive,
                let activating = resolved.records.first(where: { $0.state == .activating })
            else { continue }
            let row = Attempt.interrupted(open, record: activating, at: activator.clock())
            let step = AttemptWrite(
                kind: .finished, attemptID: open.attemptID, rows: [row],
                move: .init(activating, to: .requiresActivation), closing: nil)
            do {
                try await ledger.write(step)
                closed.append(open.attemptID)
                activator.logger.warning(
                    "activation.interruptedClosed",
                    metadata: [
                        "attempt": "\(open.attemptID)", "request-id": "\(open.requestID)",
                        "serial": "\(Mask.identifier(activating.serialNumber))",
                    ])
            } catch let error as any CodedError where error.code == .activationInterrupted {
                // Another process or host closed it first.
            }
        }
        return closed
    }

    /// Writes the "finished" steps the database refused, oldest first, stopping at the first
    /// it still refuses.
    /// - Returns: how many were written, and how many still wait.
    @discardableResult
    public func writeUnwritten() async -> (written: Int, waiting: Int) {
        var written = 0
        while let step = unwritten.withLock({ $0.first }) {
            do {
                try await session.ledger.write(step)
            } catch let error as any CodedError where error.code == .activationInterrupted {
                // Its lease expired and another host closed it: nothing is left to write.
                activator.logger.warning("activation.finishSuperseded", metadata: ["attempt": "\(step.attemptID)"])
            } catch {
                return (written, unwritten.withLock { $0.count })
            }
            unwritten.withLock { _ = $0.removeFirst() }
            written += 1
            activator.logger.notice("activation.finishWritten", metadata: ["attempt": "\(step.attemptID)"])
        }
        return (written, 0)
    }

    /// The attempts whose "finished" write waits for the database.
    public var unwrittenAttempts: [Int64] {
        unwritten.withLock { $0.map(\.attemptID) }
    }

    /// Tries for a few seconds to write what the database refused; logs what is lost.
    func writeUnwrittenBeforeClosing() async {
        let deadline = ContinuousClock.now + .seconds(5)
        while await writeUnwritten().waiting > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(200))
        }
        if !unwrittenAttempts.isEmpty {
            activator.logger.error(
                "activation.finishLost",
                metadata: [
                    "attempts": "\(unwrittenAttempts.map(String.init).joined(separator: ","))",
                    "detail":
                        "the database refused these answers until the end; the next start closes them as UNKNOWN (activation.interrupted)",
                ])
        }
    }
}

import Synchronization

/// Bounded admission (`service.max-in-flight`, `service.queue-limit`): that many requests
/// run at once, up to the queue limit more wait in arrival order, and any further one is
/// refused at once so the client can retry elsewhere or later.
final class Admission: Sendable {
    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        var head = 0
        var waitingCount: Int { waiting.count - head }
    }

    let maxInFlight: Int
    let queueLimit: Int
    private let state = Mutex(State())

    init(maxInFlight: Int, queueLimit: Int) {
        self.maxInFlight = max(1, maxInFlight)
        self.queueLimit = max(0, queueLimit)
    }

    private enum Entry { case now, wait, refused }

    /// Runs `body` once admitted; nil, without running it, when the queue is full.
    /// - Parameter queueing: wait for a slot even past the queue limit: a line of a batch
    ///   that was admitted (the batch was checked against the limit when it arrived).
    func run<T: Sendable>(queueing: Bool = false, _ body: () async -> T) async -> T? {
        let entry = state.withLock { state -> Entry in
            if state.running < maxInFlight {
                state.running += 1
                return .now
            }
            return queueing || state.waitingCount < queueLimit ? .wait : .refused
        }
        switch entry {
        case .refused:
            return nil
        case .wait:
            await withCheckedContinuation { continuation in
                let admitted = state.withLock { state -> Bool in
                    // A slot may have been freed between the two locks.
                    if state.running < maxInFlight {
                        state.running += 1
                        return true
                    }
                    state.waiting.append(continuation)
                    return false
                }
                if admitted { continuation.resume() }
            }
        case .now:
            break
        }
        defer { leave() }
        return await body()
    }

    /// Hands the slot to the oldest waiter, or frees it.
    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.head < state.waiting.count else {
                state.running -= 1
                return nil
            }
            let next = state.waiting[state.head]
            state.head += 1
            if state.head == state.waiting.count {
                state.waiting.removeAll(keepingCapacity: true)
                state.head = 0
            }
            return next
        }
        next?.resume()
    }

    /// Whether a request arriving now would be refused.
    var isFull: Bool {
        state.withLock { $0.running >= maxInFlight && $0.waitingCount >= queueLimit }
    }

    /// Requests running and waiting now.
    var load: (running: Int, waiting: Int) {
        state.withLock { ($0.running, $0.waitingCount) }
    }
}

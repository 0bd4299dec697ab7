import Synchronization

/// The writes concurrent activations queue for a driver's writer, taken in groups: the
/// writes that arrive while a group is being written wait and go together in the next one,
/// so a commit's cost is shared by many activations under load, while a lone write is
/// written at once. The writer is the driver's own (GRDB's writer for SQLite, a task on
/// PostgreSQL's connection for PostgreSQL): ``enqueue(_:)`` says when none runs and one must
/// be started; it takes groups with ``next()`` until there is none. Nothing blocks.
///
/// A write nobody waits for yet (an activation's deferred "finished" write) is queued with
/// ``hold(_:)``: it starts no writer, and goes with the next write that does, so the two
/// share a commit; ``release()`` starts one for it when it is awaited alone.
public final class WriteGroups<Item: Sendable>: Sendable {
    private struct State {
        var waiting: [Item] = []
        var isWriting = false
        var groups = 0
        var items = 0
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Queues `item`.
    /// - Returns: true when no writer runs: the caller starts one, which takes the groups.
    public func enqueue(_ item: Item) -> Bool {
        state.withLock { state in
            state.waiting.append(item)
            if state.isWriting { return false }
            state.isWriting = true
            return true
        }
    }

    /// Queues `item` without starting a writer: it goes with the next group.
    public func hold(_ item: Item) {
        state.withLock { $0.waiting.append(item) }
    }

    /// Whether items are queued with no writer to take them (held ones, awaited now).
    /// - Returns: true when the caller starts a writer, as after ``enqueue(_:)``.
    public func release() -> Bool {
        state.withLock { state in
            if state.isWriting || state.waiting.isEmpty { return false }
            state.isWriting = true
            return true
        }
    }

    /// The writer's next group, in queue order; nil when nothing waits, and the writer stops
    /// (the next ``enqueue(_:)`` starts another).
    public func next() -> [Item]? {
        let (group, drained) = state.withLock { state -> ([Item]?, [CheckedContinuation<Void, Never>]) in
            guard !state.waiting.isEmpty else {
                state.isWriting = false
                defer { state.drained = [] }
                return (nil, state.drained)
            }
            defer { state.waiting = [] }
            state.groups += 1
            state.items += state.waiting.count
            return (state.waiting, [])
        }
        for waiter in drained { waiter.resume() }
        return group
    }

    /// Groups written (or being written) so far, and the items they carried.
    public var figures: (transactions: Int, jobs: Int) {
        state.withLock { ($0.groups, $0.items) }
    }

    /// Returns once nothing is queued or being written; items held must be released first.
    public func drained() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                if !state.isWriting && state.waiting.isEmpty { return true }
                state.drained.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }
}

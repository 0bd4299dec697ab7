import Foundation

/// Items many threads write in groups, without a writer thread: a caller waiting for its
/// item while no group is being written writes every item queued so far itself (it leads
/// the group); items that arrive while a group is being written wait and go together in the
/// next one, led by one of their callers. A lone caller writes its item on its own thread,
/// with no hand-off; under load a commit's cost is shared by many items. Used by both
/// backends' attempt writers (``GroupCommitter`` for SQLite, ``PostgresGroupWriter`` for
/// PostgreSQL).
public final class GroupingQueue<Item>: @unchecked Sendable {
    /// Dropped by ``close()``, with what it holds (its owner, often).
    private var write: (([Item]) -> Void)?
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var waiting: [Item] = []
    /// Items queued so far, and written so far (items are written in queue order).
    private var queued = 0
    private var written = 0
    private var isWriting = false
    /// Callers waiting while another writes, oldest item first: each is woken once its item
    /// is written, and the oldest of the others to write the next group (no herd).
    private var sleepers: [(number: Int, wake: DispatchSemaphore)] = []
    private var groups = 0
    private var items = 0

    /// A queued item's place, to wait for it.
    public struct Ticket: Sendable {
        fileprivate let number: Int
    }

    /// - Parameter write: writes one group and completes its items, on the thread of the
    ///   caller that leads it.
    public init(write: @escaping ([Item]) -> Void) {
        self.write = write
    }

    /// Groups written (or being written) so far, and the items they carried.
    public var figures: (transactions: Int, jobs: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (groups, items)
    }

    /// Queues `item` and returns at once: it is written with the next group, at the latest
    /// when it (or an item queued after it) is waited for.
    public func enqueue(_ item: Item) -> Ticket {
        condition.lock()
        defer { condition.unlock() }
        waiting.append(item)
        queued += 1
        return Ticket(number: queued)
    }

    /// Returns once the item of `ticket` is written, writing the queued items itself when
    /// no group is being written.
    public func wait(_ ticket: Ticket) {
        condition.lock()
        defer { condition.unlock() }
        while written < ticket.number {
            if isWriting {
                let wake = DispatchSemaphore(value: 0)
                sleepers.append((ticket.number, wake))
                condition.unlock()
                wake.wait()
                condition.lock()
            } else {
                lead()
            }
        }
    }

    /// Writes what is still queued, and drops the writer.
    public func close() {
        condition.lock()
        defer { condition.unlock() }
        while isWriting { condition.wait() }
        if !waiting.isEmpty { lead() }
        write = nil
    }

    /// Writes every queued item as one group. Called and returns with the lock held.
    private func lead() {
        let group = waiting
        waiting = []
        isWriting = true
        groups += 1
        items += group.count
        let write = self.write
        condition.unlock()
        write?(group)
        condition.lock()
        isWriting = false
        written += group.count
        condition.broadcast()
        var next: DispatchSemaphore?
        sleepers.removeAll { sleeper in
            if sleeper.number <= written {
                sleeper.wake.signal()
                return true
            }
            if next == nil {
                next = sleeper.wake
                return true
            }
            return false
        }
        next?.signal()
    }
}

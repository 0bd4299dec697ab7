import Foundation

/// Items many threads hand to one writer, written in groups: the items that arrive while a
/// group is being written wait and go together in the next one. Without sharing (a single
/// caller) each item is written at once on the caller's thread, with no thread to start
/// and no hand-off. Used by both backends' batch writers (``GroupCommitter`` for SQLite,
/// ``PostgresGroupWriter`` for PostgreSQL).
public final class GroupingQueue<Item>: @unchecked Sendable {
    /// Dropped when the writer thread ends, with what it holds (its owner, often).
    private var write: (([Item]) -> Void)?
    private let hasWriterThread: Bool
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var waiting: [Item] = []
    private var closed = false
    private var groups = 0
    private var items = 0

    /// - Parameters:
    ///   - sharing: whether several threads enqueue; only then is there a writer thread.
    ///   - write: writes one group and completes its items (on the writer thread).
    public init(threadName: String, sharing: Bool, write: @escaping ([Item]) -> Void) {
        self.write = write
        hasWriterThread = sharing
        guard sharing else { return }
        let writer = Thread { [self] in writeUntilClosed() }
        writer.name = threadName
        writer.start()
    }

    /// Groups written (or being written) so far, and the items they carried.
    public var figures: (transactions: Int, jobs: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (groups, items)
    }

    /// Hands `item` to the writer (or, without sharing, writes it now).
    public func enqueue(_ item: Item) {
        guard hasWriterThread else {
            count(1)
            write?([item])
            return
        }
        condition.lock()
        waiting.append(item)
        if waiting.count == 1 { condition.signal() }
        condition.unlock()
    }

    /// Stops the writer once the items already queued are written.
    public func close() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    private func writeUntilClosed() {
        while true {
            condition.lock()
            while waiting.isEmpty && !closed { condition.wait() }
            let group = waiting
            waiting = []
            condition.unlock()
            if group.isEmpty {
                write = nil
                return
            }
            count(group.count)
            write?(group)
        }
    }

    /// Counted before the group is written, so a caller whose item is done sees it counted.
    private func count(_ size: Int) {
        condition.lock()
        groups += 1
        items += size
        condition.unlock()
    }
}

import Foundation
import Synchronization
import TestSupport
import Testing
@testable import WalletModel

/// The queue both drivers' batch writers stand on: items from many threads written by one
/// writer, in groups, each thread's items in the order it gave them.
@Suite struct GroupingQueueTests {
    final class Written: @unchecked Sendable {
        let items = Mutex<[(thread: Int, index: Int)]>([])
        let groups = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
    }

    /// Given eight threads enqueueing 200 items each, every item is written once, each
    /// thread's in its own order, in no more groups than items, and the figures say so.
    @Test func itemsFromManyThreadsAreWrittenOnceInOrder() async {
        let written = Written()
        let queue = GroupingQueue<(thread: Int, index: Int)>(threadName: "test-writer", sharing: true) { group in
            written.groups.withLock { $0.append(group.count) }
            written.items.withLock { $0.append(contentsOf: group) }
            for _ in group { written.done.signal() }
        }
        await Threads.run(count: 8) { thread in
            for index in 0..<200 { queue.enqueue((thread, index)) }
        }
        await Threads.run(count: 1) { _ in
            for _ in 0..<1600 { written.done.wait() }
        }
        queue.close()
        let items = written.items.withLock { $0 }
        #expect(items.count == 1600)
        for thread in 0..<8 {
            #expect(items.filter { $0.thread == thread }.map(\.index) == Array(0..<200))
        }
        let groups = written.groups.withLock { $0 }
        #expect(groups.reduce(0, +) == 1600)
        #expect(queue.figures.jobs == 1600 && queue.figures.transactions == groups.count)
    }

    /// Without sharing, an item is written at once on the caller's thread, one group each.
    @Test func withoutSharingEachItemIsWrittenOnTheCallersThread() {
        let callers = Mutex<[Bool]>([])
        let queue = GroupingQueue<Int>(threadName: "unused", sharing: false) { group in
            callers.withLock { $0.append(Thread.isMainThread || Thread.current.name != "unused") }
            #expect(group.count == 1)
        }
        for item in 0..<5 { queue.enqueue(item) }
        #expect(callers.withLock { $0 } == Array(repeating: true, count: 5))
        #expect(queue.figures == (transactions: 5, jobs: 5))
        queue.close()
    }
}

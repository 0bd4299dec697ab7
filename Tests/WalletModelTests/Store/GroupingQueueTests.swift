import Foundation
import Synchronization
import TestSupport
import Testing

@testable import WalletModel

/// The queue both drivers' attempt writers stand on: items from many threads written in
/// groups by the callers that wait for them, each thread's items in the order it gave them.
@Suite struct GroupingQueueTests {
    final class Written: @unchecked Sendable {
        let items = Mutex<[(thread: Int, index: Int)]>([])
        let groups = Mutex<[Int]>([])
        let writers = Mutex<Set<Int>>([])
    }

    /// Given eight threads each queueing items and waiting for every fourth, every item is
    /// written once, each thread's in its own order, in fewer groups than items, by the
    /// callers themselves, and the figures say so.
    @Test func itemsFromManyThreadsAreWrittenOnceInOrder() async {
        let written = Written()
        let queue = GroupingQueue<(thread: Int, index: Int)> { group in
            written.groups.withLock { $0.append(group.count) }
            written.items.withLock { $0.append(contentsOf: group) }
            written.writers.withLock { _ = $0.insert(group[0].thread) }
            usleep(200)
        }
        await Threads.run(count: 8) { thread in
            for index in 0..<200 {
                let ticket = queue.enqueue((thread, index))
                if index % 4 == 3 { queue.wait(ticket) }
            }
        }
        queue.close()
        let items = written.items.withLock { $0 }
        #expect(items.count == 1600)
        for thread in 0..<8 {
            #expect(items.filter { $0.thread == thread }.map(\.index) == Array(0..<200))
        }
        let groups = written.groups.withLock { $0 }
        #expect(groups.reduce(0, +) == 1600)
        #expect(groups.count < 1600)
        #expect(queue.figures.jobs == 1600 && queue.figures.transactions == groups.count)
    }

    /// A lone caller writes its item on its own thread when it waits for it, and not before;
    /// close writes what nobody waited for.
    @Test func aLoneCallerWritesItsItemWhenItWaits() {
        let callers = Mutex<[(group: [Int], onCaller: Bool)]>([])
        let caller = Thread.current
        let queue = GroupingQueue<Int> { group in
            callers.withLock { $0.append((group, Thread.current == caller)) }
        }
        let first = queue.enqueue(1)
        #expect(callers.withLock { $0.isEmpty })
        let second = queue.enqueue(2)
        queue.wait(second)
        queue.wait(first)
        _ = queue.enqueue(3)
        queue.close()
        #expect(callers.withLock { $0.map(\.group) } == [[1, 2], [3]])
        #expect(callers.withLock { $0.allSatisfy(\.onCaller) })
        #expect(queue.figures == (transactions: 2, jobs: 3))
    }
}

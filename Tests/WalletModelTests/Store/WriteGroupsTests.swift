import Synchronization
import Testing

@testable import WalletModel

/// The queue both drivers' attempt writers stand on: items from many tasks taken in groups by
/// one writer at a time, in queue order, with the writer started by the item that finds none.
@Suite struct WriteGroupsTests {
    /// A writer like a driver's: started when `enqueue` says so, taking groups until none
    /// is left, completing each item's promise after a short write.
    final class Writer: Sendable {
        let groups = WriteGroups<(task: Int, index: Int, done: Promise<Void>)>()
        let written = Mutex<[(task: Int, index: Int)]>([])
        let sizes = Mutex<[Int]>([])
        let writers = Atomic<Int>(0)
        let mostAtOnce = Atomic<Int>(0)

        func write(_ task: Int, _ index: Int) -> Promise<Void> {
            let done = Promise<Void>()
            if groups.enqueue((task, index, done)) {
                Task {
                    while let group = groups.next() {
                        let running = writers.add(1, ordering: .relaxed).newValue
                        mostAtOnce.max(running, ordering: .relaxed)
                        try? await Task.sleep(for: .microseconds(200))
                        written.withLock { $0.append(contentsOf: group.map { ($0.task, $0.index) }) }
                        sizes.withLock { $0.append(group.count) }
                        writers.subtract(1, ordering: .relaxed)
                        for item in group { item.done.give(()) }
                    }
                }
            }
            return done
        }
    }

    /// Given eight tasks each queueing items and awaiting every fourth, every item is
    /// written once, each task's in its own order, by one writer at a time, in fewer groups
    /// than items, and the figures say so.
    @Test func itemsFromManyTasksAreWrittenOnceInOrder() async {
        let writer = Writer()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        let done = writer.write(task, index)
                        if index % 4 == 3 { await done.value }
                    }
                }
            }
        }
        await writer.groups.drained()
        let items = writer.written.withLock { $0 }
        #expect(items.count == 1600)
        for task in 0..<8 {
            #expect(items.filter { $0.task == task }.map(\.index) == Array(0..<200))
        }
        let sizes = writer.sizes.withLock { $0 }
        #expect(sizes.reduce(0, +) == 1600)
        #expect(sizes.count < 1600)
        #expect(writer.mostAtOnce.load(ordering: .relaxed) == 1)
        #expect(writer.groups.figures.jobs == 1600 && writer.groups.figures.transactions == sizes.count)
    }

    /// The first item starts a writer, items queued while it writes do not start another,
    /// and a writer that found nothing left stops: the next item starts one again.
    @Test func onlyTheItemThatFindsNoWriterStartsOne() {
        let groups = WriteGroups<Int>()
        #expect(groups.enqueue(1))
        #expect(!groups.enqueue(2))
        #expect(groups.next() == [1, 2])
        #expect(!groups.enqueue(3))
        #expect(groups.next() == [3])
        #expect(groups.next() == nil)
        #expect(groups.enqueue(4))
        #expect(groups.next() == [4])
        #expect(groups.next() == nil)
        #expect(groups.figures == (transactions: 3, jobs: 4))
    }

    /// A held item starts no writer: it goes with the next item that does, or alone once
    /// released; a release while a writer runs leaves it to that writer.
    @Test func aHeldItemGoesWithTheNextGroupOrAloneOnceReleased() {
        let groups = WriteGroups<Int>()
        groups.hold(1)
        #expect(groups.enqueue(2))
        #expect(groups.next() == [1, 2])
        #expect(groups.next() == nil)
        groups.hold(3)
        #expect(groups.release())
        #expect(!groups.release())
        #expect(groups.next() == [3])
        #expect(groups.next() == nil)
        #expect(!groups.release())
        #expect(groups.figures == (transactions: 2, jobs: 3))
    }

    /// `drained()` returns at once when idle, and otherwise once the writer has stopped.
    @Test func drainedWaitsForTheWriterToStop() async {
        let groups = WriteGroups<Int>()
        await groups.drained()
        #expect(groups.enqueue(1))
        let stopped = Flag()
        async let waited: Void = {
            await groups.drained()
            let wasStopped = stopped.value.load(ordering: .relaxed)
            #expect(wasStopped)
        }()
        #expect(groups.next() == [1])
        stopped.value.store(true, ordering: .relaxed)
        #expect(groups.next() == nil)
        await waited
    }

    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// A promise hands its value to a task that awaited it before or after it was given.
    @Test func aPromiseIsAnsweredWhetherAwaitedBeforeOrAfter() async {
        let early = Promise<Int>()
        async let first = early.value
        early.give(7)
        early.give(8)
        #expect(await first == 7)
        let late = Promise<String>()
        late.give("given")
        #expect(await late.value == "given")
    }
}

import Foundation
import Synchronization

/// Threads of the activations' own. A worker runs each of its activations from start to
/// end on one thread: libcurl's blocking transfer, the group commit and the audit's hash
/// run there, without hops between executors.
enum ActivationWorkers {
    /// Runs `body` on a new thread and returns its value.
    static func result<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            start { continuation.resume(returning: body()) }
        }
    }

    /// Runs `body(worker)` for each worker 0..<count on a thread of its own, and returns
    /// once every one has returned.
    static func run(count: Int, _ body: @escaping @Sendable (_ worker: Int) -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let remaining = Remaining(count)
            for worker in 0..<count {
                start {
                    body(worker)
                    if remaining.finishOne() { continuation.resume() }
                }
            }
        }
    }

    private static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = "tokenctl.activation"
        thread.start()
    }

    private final class Remaining: Sendable {
        private let count: Atomic<Int>

        init(_ count: Int) {
            self.count = Atomic(count)
        }

        /// True for the last worker to finish.
        func finishOne() -> Bool {
            count.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
        }
    }
}

import Foundation

/// Runs blocking work (database calls, semaphores, a PostgreSQL round trip) on threads of its
/// own: a test that blocks the cooperative pool's few threads can stop every other test.
public enum Threads {
    /// Runs `body` on a new thread and returns its value or error.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Runs `body(worker)` for each worker 0..<count on a thread of its own, and returns once
    /// every one has returned.
    public static func run(count: Int, _ body: @escaping @Sendable (_ worker: Int) -> Void) async {
        let group = DispatchGroup()
        for worker in 0..<count {
            group.enter()
            Thread {
                body(worker)
                group.leave()
            }.start()
        }
        await withCheckedContinuation { continuation in
            group.notify(queue: .global()) { continuation.resume() }
        }
    }
}

import Foundation

/// The threads a driver runs its blocking calls on for async callers: a fixed number,
/// started on first use, taking the calls in arrival order. Async code reaches the database
/// through ``TokenStore/run(_:)``, never by blocking a thread of Swift's cooperative pool,
/// and never by starting a thread per call.
public final class DatabaseThreads: @unchecked Sendable {
    private let label: String
    private let count: Int
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var calls: [() -> Void] = []
    private var head = 0
    private var started = 0
    private var idle = 0
    private var stopped = false

    /// The threads of a driver unless it says otherwise.
    public static let defaultCount = 4

    /// - Parameter count: the most calls that run at once.
    public init(label: String, count: Int = DatabaseThreads.defaultCount) {
        self.label = label
        self.count = max(1, count)
    }

    /// Runs `body` on one of the threads and returns its value.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            enqueue { continuation.resume(with: Result { try body() }) }
        }
    }

    private func enqueue(_ call: @escaping () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        calls.append(call)
        if idle > 0 {
            condition.signal()
        } else if started < count {
            started += 1
            Thread.start(named: label) { [self] in serve() }
        }
    }

    /// Lets the threads finish what is queued, then end.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func serve() {
        condition.lock()
        while true {
            if head < calls.count {
                let call = calls[head]
                head += 1
                if head == calls.count {
                    calls.removeAll(keepingCapacity: true)
                    head = 0
                }
                condition.unlock()
                call()
                condition.lock()
            } else if stopped {
                condition.unlock()
                return
            } else {
                idle += 1
                condition.wait()
                idle -= 1
            }
        }
    }
}

import Foundation

extension Thread {
    /// Starts a thread of tokenctl's own under `name`, the name `ps -L`, `top -H` and a
    /// profiler show. Foundation on Linux gives the system thread a name only when the thread
    /// sets it itself, and Linux only one of at most 15 bytes (a longer one is refused, not
    /// cut); one set before `start()` is kept by the object alone, and the thread showed its
    /// creator's name (a task's `com.apple.root.default-qos`).
    public static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        precondition(name.utf8.count <= 15, "a thread name has at most 15 bytes")
        Thread {
            Thread.current.name = name
            body()
        }.start()
    }
}

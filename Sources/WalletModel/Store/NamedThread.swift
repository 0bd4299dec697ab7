import Foundation
import Glibc

extension Thread {
    /// Starts a thread of tokenctl's own under `name`, the name `ps -L`, `top -H` and a
    /// profiler show. A Linux thread starts with its creator's name (a task's
    /// `com.apple.root.default-qos`, cut to 15 bytes) and only the thread itself can set
    /// its own (at most 15 bytes: a longer one is refused, not cut). Written to
    /// `/proc/thread-self/comm` first thing (what `pthread_setname_np` does, which Swift's
    /// Glibc does not declare): Foundation's `Thread.current.name` did not always reach the
    /// system thread.
    public static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        precondition(name.utf8.count <= 15, "a thread name has at most 15 bytes")
        Thread {
            let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            if comm >= 0 {
                _ = name.withCString { write(comm, $0, strlen($0)) }
                close(comm)
            }
            Thread.current.name = name
            body()
        }.start()
    }
}

import Dispatch
import Foundation
import Synchronization

/// One thread of a transport's own that runs its blocking transfers, one at a time, for
/// async callers: started with the first transfer, stopped when its transport goes. A
/// transport with its own thread sends concurrently with every other transport, whatever
/// the number of cores (libdispatch's global queue runs at most about one blocking work item
/// per core, which would serialise the runtime's connections).
final class TransferThread: Sendable {
    private struct State {
        var pending: [@Sendable () -> Void] = []
        var isStarted = false
        var isStopping = false
    }

    private let name: String
    private let state = Mutex(State())
    private let work = DispatchSemaphore(value: 0)

    init(name: String) {
        self.name = name
    }

    /// Runs `body` on the thread, after what was queued before it.
    func run(_ body: @escaping @Sendable () -> Void) {
        let start = state.withLock { state -> Bool in
            state.pending.append(body)
            defer { state.isStarted = true }
            return !state.isStarted
        }
        if start {
            // The thread holds this object, not the transport: the transport's deinit stops it.
            let thread = Thread { [self] in loop() }
            thread.name = name
            thread.start()
        }
        work.signal()
    }

    /// Lets the thread finish what is queued, then end.
    func stop() {
        state.withLock { $0.isStopping = true }
        work.signal()
    }

    private func loop() {
        while true {
            work.wait()
            let (next, stopping) = state.withLock { state -> ((@Sendable () -> Void)?, Bool) in
                (state.pending.isEmpty ? nil : state.pending.removeFirst(), state.isStopping)
            }
            if let next {
                next()
            } else if stopping {
                return
            }
        }
    }
}

import Dispatch
import Glibc

/// SIGTERM and SIGINT for a service: the first calls `drain` (once); a second exits at
/// once with 128 + the signal's number, leaving what was in flight to the
/// interrupted-owner rule. Unchecked Sendable: the sources are written once, in `init`.
final class StopSignals: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(drain: @escaping @Sendable (_ signal: String) -> Void) {
        let queue = DispatchQueue(label: "tokenctl.service.signals")
        let received = SignalCount()
        sources = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")].map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if received.next() > 1 { _exit(128 + number) }
                drain(name)
            }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}

/// Signals received so far; touched on the signal queue only.
private final class SignalCount: @unchecked Sendable {
    private var count = 0

    func next() -> Int {
        count += 1
        return count
    }
}

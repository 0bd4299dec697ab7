import Dispatch
import Glibc
import TokenActivation
import TokenctlApp

/// SIGINT and SIGTERM for a command that can stop cleanly: the first asks it to stop
/// (``BatchStop``) and says so on standard error; a second flushes what was printed and exits
/// at once. Exits are 128 + the signal (130 for SIGINT, 143 for SIGTERM).
final class InterruptHandler: @unchecked Sendable {
    let stop = BatchStop()
    private var sources: [any DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "tokenctl.signals")
    /// The first signal received; read after the batch returned.
    private(set) var signal: Int32?

    /// - Parameter firstMessage: printed on standard error at the first signal.
    init(firstMessage: String) {
        for number in [SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [unowned self] in
                if self.signal != nil {
                    Output.flush()
                    Output.error("second signal: abandoning the requests in flight (they are closed as UNKNOWN by the next run)")
                    _exit(128 + number)
                }
                self.signal = number
                self.stop.request()
                Output.error(firstMessage)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The exit status for the first signal, if one came.
    var exitStatus: Int32? {
        queue.sync { signal.map { 128 + $0 } }
    }

    /// Restores the default dispositions.
    func cancel() {
        for source in sources { source.cancel() }
        Glibc.signal(SIGINT, SIG_DFL)
        Glibc.signal(SIGTERM, SIG_DFL)
    }
}

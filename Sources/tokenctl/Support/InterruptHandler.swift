import Dispatch
import Glibc
import TokenActivation
import TokenctlApp
import TokenctlCommandLine

/// Signals for a command that stops on its own terms, on one dispatch queue. The batch's
/// first SIGINT or SIGTERM asks it to stop (``BatchStop``) and says so on standard error; a
/// second flushes what was printed and exits at once. `verification run` exits at the first
/// Ctrl-C, saying how to resume. Exits are 128 + the signal (130 for SIGINT, 143 for SIGTERM).
/// (The sandbox stops in a plain signal handler: ``SandboxStopper``.)
final class InterruptHandler: @unchecked Sendable {
    let stop = BatchStop()
    private var sources: [any DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "tokenctl.signals")
    /// The first signal received; read after the batch returned.
    private(set) var signal: Int32?

    /// For a batch: the first signal requests ``stop``.
    /// - Parameter firstMessage: printed on standard error at the first signal.
    convenience init(firstMessage: String) {
        self.init(signals: [SIGINT, SIGTERM]) { handler, _ in
            handler.stop.request()
            Output.error(firstMessage)
        }
    }

    /// Exits 130 at the first Ctrl-C after printing `message` on standard output.
    convenience init(exitingWith message: String) {
        self.init(signals: [SIGINT]) { _, _ in
            Output.flush()
            writeAll(STDOUT_FILENO, "\n" + message + "\n")
            _exit(130)
        }
    }

    /// - Parameter first: run on the handler's queue at the first of `signals`; a second one
    ///   exits at once.
    init(signals: [Int32], first: @escaping (InterruptHandler, Int32) -> Void) {
        for number in signals {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [unowned self] in
                if self.signal != nil {
                    Output.flush()
                    Output.error(
                        "second signal: abandoning the requests in flight (they are closed as UNKNOWN by the next run)")
                    _exit(128 + number)
                }
                self.signal = number
                first(self, number)
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

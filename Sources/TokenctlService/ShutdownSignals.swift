import Glibc
import ServiceLifecycle
import UnixSignals

/// The first SIGTERM or SIGINT is the service group's graceful shutdown
/// (swift-service-lifecycle traps ``signals``); the group ignores a repeated one, so a
/// second signal is counted here and exits at once with 128 + its number, leaving what was
/// in flight to the interrupted-owner rule.
enum SecondSignalExit {
    static let signals: [UnixSignal] = [.sigterm, .sigint]

    /// Counts the signals until the task is cancelled.
    static func watch() async -> Task<Void, Never> {
        let sequence = await UnixSignalsSequence(trapping: signals)
        return Task {
            var received = 0
            for await signal in sequence {
                received += 1
                if received > 1 { _exit(128 + signal.rawValue) }
            }
        }
    }
}

/// The first to shut down (the group shuts its services down in reverse order): from then on
/// `/readyz` answers 503, a batch reads no further line, and systemd is told `STOPPING=1`;
/// the listeners then drain.
struct DrainOnShutdown: Service, CustomStringConvertible {
    var description: String { "Draining" }

    let service: ActivationService
    let notify: SystemdNotify

    func run() async throws {
        try? await gracefulShutdown()
        service.logger.notice("service.draining")
        service.startDraining()
        notify.send("STOPPING=1")
    }
}

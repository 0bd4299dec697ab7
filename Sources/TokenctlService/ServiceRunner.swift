import Dispatch
import ErrorCodes
import Foundation
import HTTPTransport
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import TokenActivation
import TokenctlApp
import TokenctlConfiguration
import WalletModel

/// `tokenctl serve`: the composition root of the resident service. It checks the
/// listeners, takes the socket's lock, opens the activation runtime, listens, reports
/// `listening …` lines and systemd readiness, and drains on the first SIGTERM or SIGINT.
public struct ServiceRunner: Sendable {
    public struct Options: Sendable {
        /// `--socket`, in place of `service.socket`.
        public var socket: String?
        /// `--listen`, repeatable.
        public var listen: [ListenAddress]
        public var version: String

        public init(socket: String?, listen: [ListenAddress], version: String) {
            self.socket = socket
            self.listen = listen
            self.version = version
        }
    }

    let settings: Settings
    let options: Options
    let environment: [String: String]
    let logger: Logger

    public init(
        settings: Settings, options: Options, environment: [String: String],
        logger: Logger = Logger(label: "tokenctl.service")
    ) {
        self.settings = settings
        self.options = options
        self.environment = environment
        self.logger = logger
    }

    /// Serves until a signal stops it.
    /// - Throws: a ``CodedError`` when the service cannot start (78 access rules, 75 a
    ///   live server on the socket, 74 the database, 69 cannot listen).
    public func run() async throws {
        let access = try ListenerAccess(settings: settings.service, listen: options.listen, environment: environment)
        let adopted = SocketActivation.descriptors(environment: environment)
        let adoptsUnixSocket = adopted.contains(where: SocketActivation.isUnixSocket)
        let socketPath = options.socket ?? settings.service.socket
        // The lock comes before anything is bound: a live server's socket is never unlinked.
        let lock = adoptsUnixSocket ? nil : try SocketLock(socketPath: socketPath)
        var lockReleased = false
        defer { if !lockReleased { lock?.release(unlinkingSocket: false) } }

        // A log that is named must be signable: the key is read before anything starts.
        let auditSigner = try settings.audit.origin.map { _ in try settings.audit.signer() }
        let service = try await Self.activationService(
            settings: settings, environment: environment, version: options.version, logger: logger)
        let (runtime, workers) = (service.runtime, service.runtime.workers)
        // A SIGKILL loses nothing committed: what the dead process left open is closed
        // before anything is admitted.
        await InterruptedAttemptRecovery.closeNow(service, logger: logger)
        if let unusable = runtime.unusable {
            logger.warning(
                "service.notReady", metadata: ["error": "\(unusable.code.rawValue)", "detail": "\(unusable.message)"])
        }

        var listeners: [any Service] = []
        let report = ListeningReport()
        let api = ServedAPI(routes: APIRoutes(service: service), settings: settings.service, logger: logger)
        func add(
            _ address: ListenerAddress, bearerToken: [UInt8]?, tls: TLSConfiguration? = nil,
            label: @escaping @Sendable (SocketAddress?) -> String
        ) throws {
            let index = listeners.count
            let mode = settings.service.socketMode
            listeners.append(
                try api.listener(address, bearerToken: bearerToken, tls: tls) { bound in
                    if case .unix(let path) = address { _ = chmod(path, mode_t(mode)) }
                    await report.listening(index, label(bound))
                })
        }
        if adopted.isEmpty || !adoptsUnixSocket {
            try add(.unix(path: socketPath), bearerToken: nil) { _ in "unix:\(socketPath)" }
        }
        for descriptor in adopted {
            let isUnix = SocketActivation.isUnixSocket(descriptor)
            try add(.adopted(descriptor: descriptor), bearerToken: isUnix ? nil : access.bearerToken) { bound in
                isUnix
                    ? "unix:\(bound?.pathname ?? "fd \(descriptor)") (systemd)"
                    : "http://\(Self.display(bound)) (systemd)"
            }
        }
        let scheme = access.tls == nil ? "http" : "https"
        for address in options.listen {
            try add(.tcp(host: address.host, port: address.port), bearerToken: access.bearerToken, tls: access.tls) {
                "\(scheme)://\(Self.display($0))"
            }
        }
        await report.expect(listeners.count)

        // Shut down in reverse order: draining starts, the listeners drain (every admitted
        // request is answered), then the purge stops, the last checkpoint is signed, then the
        // runtime's workers and database close.
        let notify = SystemdNotify(environment: environment)
        var services: [any Service] = [RuntimeService(service: service)]
        if let (origin, signer) = auditSigner {
            let metrics = service.metrics
            let publisher = try settings.audit.witnessPublisher { metrics.witnessRequest($0) }
            services.append(
                AuditCheckpointing(
                    service: service, origin: origin, signer: signer,
                    interval: .seconds(settings.audit.checkpointIntervalSeconds), publisher: publisher, logger: logger
                ))
        }
        services += [
            IdempotencyPurge(service: service, logger: logger),
            InterruptedAttemptRecovery(
                service: service, interval: Self.recoveryInterval(leaseMilliseconds: settings.leaseMilliseconds),
                logger: logger),
        ]
        services += listeners
        services.append(DrainOnShutdown(service: service, notify: notify))
        let group = ServiceGroup(
            services: services,
            gracefulShutdownSignals: SecondSignalExit.signals, cancellationSignals: [], logger: logger
        )
        let signals = await SecondSignalExit.watch()
        Task {
            await report.allListening()
            logger.notice(
                "service.ready",
                metadata: [
                    "workers": "\(workers)",
                    "database": "\(settings.store.backend)",
                ])
            notify.send("READY=1\nSTATUS=serving")
        }
        do {
            try await group.run()
        } catch {
            signals.cancel()
            throw ServiceError(.serviceCannotListen, "cannot listen: \(error)")
        }
        signals.cancel()
        lock?.release(unlinkingSocket: true)
        lockReleased = true
        logger.notice("service.stopped")
    }

    /// The reads the service's database runs at once.
    static let concurrentReaders = 4

    /// The activation runtime and what every listener shares, on these settings (the caller
    /// closes its runtime).
    static func activationService(
        settings: Settings, environment: [String: String], version: String, logger: Logger
    ) async throws -> ActivationService {
        // Reads (passes, the audit, health, keys' lookups) beside the group commits.
        var settings = settings
        settings.database.concurrentReaders = Self.concurrentReaders
        let metrics = ServiceMetrics(version: version)
        // TMP's requests and the user gates' are counted apart, each under its own name.
        let activator = Activator(
            settings: settings, environment: environment,
            transports: MeasuredTransport.factory(idleTimeoutMilliseconds: settings.tmp.idleTimeoutMilliseconds) {
                status, duration, opened in
                metrics.tmpRequest(status: status, duration: duration, connectionsOpened: opened)
            },
            onboardingTransports: MeasuredTransport.factory { status, _, _ in metrics.onboardingRequest(status: status)
            },
            logger: Logger(label: "tokenctl.activation")
        )
        var runtimeOptions = ActivationRuntime.Options(
            workers: min(settings.service.maxInFlight, settings.tmp.maxConnections))
        runtimeOptions.capacity = settings.service.maxInFlight + settings.service.queueLimit
        runtimeOptions.gatesPerActivation = true
        runtimeOptions.keepsUnwritten = true
        let runtime = try await ActivationRuntime(
            activator: activator, options: runtimeOptions, observer: ActivationLog(metrics: metrics, logger: logger))
        do {
            let database = runtime.database
            let keys = IdempotencyKeys(
                database: database, hasher: DeeplinkHasher(key: try await database.deeplinkHashKey()),
                hostID: settings.hostID,
                abandonedAfterMilliseconds: Int64(2 * settings.tmp.longestAttemptMilliseconds),
                retentionMilliseconds: Int64(settings.service.idempotencyRetentionHours) * 3_600_000,
                clock: Timestamp.now
            )
            return ActivationService(
                runtime: runtime, driver: settings.store, metrics: metrics, idempotency: keys, logger: logger)
        } catch {
            await runtime.close()
            throw error
        }
    }

    /// How often open attempts of dead owners are looked for: half a lease (a host's
    /// attempt is closable once its lease expires), between 1 and 30 seconds.
    static func recoveryInterval(leaseMilliseconds: Int) -> Duration {
        .milliseconds(min(30_000, max(1_000, leaseMilliseconds / 2)))
    }

    static func display(_ address: SocketAddress?) -> String {
        guard let address, let ip = address.ipAddress, let port = address.port else { return "?" }
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}

/// The activation runtime as a service: open until the group shuts down, then its workers
/// stop and its database closes (after the listeners, which the group shuts down before it).
struct RuntimeService: Service, CustomStringConvertible {
    var description: String { "ActivationRuntime" }

    let service: ActivationService

    func run() async throws {
        try? await gracefulShutdown()
        // Lets the activations admitted finish, then closes the database.
        await service.runtime.close()
    }
}

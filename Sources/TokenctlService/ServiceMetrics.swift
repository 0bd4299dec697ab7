import Prometheus
import Synchronization
import TokenActivation
import WalletModel

/// The service's metrics (DESIGN §8), on one Prometheus registry. Every label set is fixed
/// per name and made up front: no identifier ever becomes a label value.
public final class ServiceMetrics: Sendable {
    /// The routes `tokenctl_http_requests_total` names, as path templates.
    public enum Route: String, CaseIterable, Sendable {
        case activations = "/v1/activations"
        case batch = "/v1/activations/batch"
        case passes = "/v1/passes/{serialNumber}"
        case audit = "/v1/audit"
        case auditCheckpoint = "/v1/audit/checkpoint"
        case auditProof = "/v1/audit/proof"
        case auditConsistency = "/v1/audit/consistency"
        case livez = "/livez"
        case readyz = "/readyz"
        case metrics = "/metrics"
        /// Any path outside the API.
        case unknown = "other"
    }

    private let registry = PrometheusCollectorRegistry()
    private let activations: [Outcome: Counter]
    private let activationDuration: DurationHistogram
    private let tmpRequests: [String: Counter]
    private let tmpDuration: DurationHistogram
    private let connectionsOpened: Counter
    private let onboardingRequests: [String: Counter]
    private let inflight: Gauge
    private let auditTreeSize: Gauge
    private let auditCheckpoints: [String: Counter]
    private let witnessRequests: [WitnessPublisher.RequestResult: Counter]
    private let databaseReconnects: (ok: Counter, failed: Counter)
    private let primaryChanges: Counter
    /// The database's figures as last counted (they are read from the store at each exposition).
    private let databaseCounted = Mutex(ConnectionFigures())
    private let inflightCount = Atomic<Int>(0)
    private let httpRequests = Mutex<[String: Counter]>([:])

    /// From 0.5 ms to 30 s.
    static let activationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5),
        .seconds(5), .seconds(10), .seconds(30),
    ]
    static let statusClasses = ["2xx", "3xx", "4xx", "5xx", "none"]

    public init(version: String) {
        let registry = self.registry
        activations = Dictionary(
            uniqueKeysWithValues: Outcome.allCases.filter { $0 != .dryRun }.map { outcome in
                (
                    outcome,
                    registry.makeCounter(
                        descriptor: Self.name(
                            "activations", "total", "Activation answers by outcome (dry runs excepted)."),
                        labels: [("outcome", outcome.rawValue)])
                )
            })
        activationDuration = registry.makeDurationHistogram(
            descriptor: Self.name("activation_duration", "seconds", "Time from a request's admission to its answer."),
            labels: [], buckets: Self.activationBuckets
        )
        tmpRequests = Dictionary(
            uniqueKeysWithValues: Self.statusClasses.map { statusClass in
                (
                    statusClass,
                    registry.makeCounter(
                        descriptor: Self.name(
                            "tmp_requests", "total", "Requests sent to TMP by answer class (none: no answer came)."),
                        labels: [("status_class", statusClass)])
                )
            })
        tmpDuration = registry.makeDurationHistogram(
            descriptor: Self.name("tmp_request_duration", "seconds", "Time of one TMP request, answer or failure."),
            labels: [], buckets: Self.activationBuckets
        )
        onboardingRequests = Dictionary(
            uniqueKeysWithValues: Self.statusClasses.map { statusClass in
                (
                    statusClass,
                    registry.makeCounter(
                        descriptor: Self.name(
                            "onboarding_requests", "total",
                            "Requests the user gates sent to the onboarding and PowerAuth servers, by answer class (none: no answer came)."
                        ),
                        labels: [("result", statusClass)]
                    )
                )
            })
        connectionsOpened = registry.makeCounter(
            descriptor: Self.name(
                "tmp_connections_opened", "total", "TMP connections opened (a kept-alive one counts once)."), labels: []
        )
        inflight = registry.makeGauge(
            descriptor: Self.name(
                "inflight", "activations",
                "Activations a worker has taken and not yet answered (those waiting for a worker are not counted)."),
            labels: [])
        auditTreeSize = registry.makeGauge(
            descriptor: Self.name(
                "audit_tree", "size", "Rows of the audit log's tree at the last checkpoint the service signed."),
            labels: [])
        auditCheckpoints = Dictionary(
            uniqueKeysWithValues: ["signed", "failed"].map { result in
                (
                    result,
                    registry.makeCounter(
                        descriptor: Self.name(
                            "audit_checkpoints", "total",
                            "Checkpoints of the audit log the service signed, or failed to."),
                        labels: [("result", result)])
                )
            })
        witnessRequests = Dictionary(
            uniqueKeysWithValues: WitnessPublisher.RequestResult.allCases.map { result in
                (
                    result,
                    registry.makeCounter(
                        descriptor: Self.name(
                            "audit_witness_requests", "total",
                            "add-checkpoint requests to the audit log's witnesses by result (conflict: 409, asked again)."
                        ),
                        labels: [("result", result.rawValue)]
                    )
                )
            })
        let reconnects = Self.name(
            "database_reconnects", "total",
            "Calls that found a PostgreSQL server again after their connection broke (ok), or whose database.reconnect-window-ms ended first (failed)."
        )
        databaseReconnects = (
            registry.makeCounter(descriptor: reconnects, labels: [("result", "ok")]),
            registry.makeCounter(descriptor: reconnects, labels: [("result", "failed")])
        )
        primaryChanges = registry.makeCounter(
            descriptor: Self.name(
                "database_primary_changes", "total", "Changes of the host of database.url that accepts writes."),
            labels: [])
        registry.makeGauge(
            descriptor: Self.name("build", "info", "The running tokenctl's version."), labels: [("version", version)]
        ).set(1.0)
    }

    /// `tokenctl_NAME_UNIT` with its help text.
    private static func name(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "tokenctl", metricName: name, unitName: unit, helpText: help)
    }

    func activationStarted() {
        inflight.set(Double(inflightCount.add(1, ordering: .relaxed).newValue))
    }

    /// One activation answered; dry runs are not counted.
    func activationFinished(_ result: ActivationResult, after duration: Duration) {
        inflight.set(Double(inflightCount.subtract(1, ordering: .relaxed).newValue))
        guard result.outcome != .dryRun else { return }
        activations[result.outcome]?.increment()
        activationDuration.record(duration)
    }

    /// One request sent to TMP: its answer's status, or nil when none came.
    func tmpRequest(status: Int?, duration: Duration, connectionsOpened opened: Int) {
        tmpRequests[Self.statusClass(status)]?.increment()
        tmpDuration.record(duration)
        if opened > 0 { connectionsOpened.increment(by: Int64(opened)) }
    }

    /// One request a user gate sent to the onboarding or PowerAuth server (never counted as TMP's).
    func onboardingRequest(status: Int?) {
        onboardingRequests[Self.statusClass(status)]?.increment()
    }

    /// `2xx` … `5xx`, or `none` when no answer came.
    private static func statusClass(_ status: Int?) -> String {
        status.map { (100...599).contains($0) ? "\($0 / 100)xx" : "none" } ?? "none"
    }

    func witnessRequest(_ result: WitnessPublisher.RequestResult) {
        witnessRequests[result]?.increment()
    }

    /// A checkpoint at `size` rows (nil: signing failed), counted as signed when this
    /// process signed it (`isNew`); in a fleet, one that another instance signed first is not.
    func auditCheckpoint(size: Int64?, isNew: Bool = true) {
        if size == nil || isNew { auditCheckpoints[size == nil ? "failed" : "signed"]?.increment() }
        if let size { auditTreeSize.set(Double(size)) }
    }

    /// One HTTP answer of the API.
    func httpRequest(route: Route, status: Int) {
        let key = "\(route.rawValue) \(status)"
        let counter = httpRequests.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = registry.makeCounter(
                descriptor: Self.name("http_requests", "total", "API answers by route template and status."),
                labels: [("route", route.rawValue), ("status", String(status))])
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    /// The Prometheus text format 0.0.4, with the database's connection figures as they are now.
    func exposition(database: ConnectionFigures = ConnectionFigures()) -> [UInt8] {
        let counted = databaseCounted.withLock { counted in
            defer { counted = database }
            return counted
        }
        databaseReconnects.ok.increment(by: Int64(max(0, database.reconnected - counted.reconnected)))
        databaseReconnects.failed.increment(by: Int64(max(0, database.reconnectsFailed - counted.reconnectsFailed)))
        primaryChanges.increment(by: Int64(max(0, database.primaryChanges - counted.primaryChanges)))
        return registry.emitToBuffer()
    }
}

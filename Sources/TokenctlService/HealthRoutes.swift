import ErrorCodes
import Hummingbird
import TextFormats
import TokenctlApp
import TokenctlConfiguration
import WalletModel

extension APIRoutes {
    /// `GET /readyz`: the database open and its schema current, the settings usable, the
    /// audit log not cut (named only when it is), and not draining.
    func readiness() async -> Response {
        var checks: [(String, JSONObject.Value)] = []
        var ready = true
        func check(_ name: String, _ failure: String?) {
            if let failure {
                ready = false
                checks.append((name, .object(JSONObject(["status": .string("fail"), "detail": .string(failure)]))))
            } else {
                checks.append((name, .object(JSONObject(["status": .string("pass")]))))
            }
        }
        do {
            // On the service's open database: a probe opens no connection of its own, and
            // awaits the driver's executor. During a failover it says `database` within its
            // own short window, not the requests'.
            let status = try await StoreDeadline.within(Self.readinessWindow, until: .now + Self.readinessWindow) {
                try await service.runtime.database.databaseStatus()
            }
            check("database", nil)
            check(
                "schema",
                status.isCurrent
                    ? nil
                    : "\(status.pending.count) \(status.pending.count == 1 ? "migration" : "migrations") pending: run tokenctl db migrate"
            )
        } catch {
            check("database", Self.publicDetail(error as? any CodedError) ?? "the database cannot be used (storage.io)")
        }
        check("settings", Self.publicDetail(service.runtime.unusable))
        if service.auditCut != nil {
            check(
                "audit",
                "the audit log was cut: it has fewer rows than a checkpoint it signed or a witness cosigned (audit.inconsistent); no checkpoint is signed; tokenctl audit verify says more"
            )
        }
        check("draining", service.isDraining ? "the service is stopping" : nil)
        var body = JSONObject(["status": .string(ready ? "pass" : "fail")])
        var members = JSONObject([:])
        for (name, value) in checks { members.append(name, value) }
        body.append("checks", .object(members))
        return Self.json(ready ? 200 : 503, body)
    }

    /// How long `/readyz` waits for the database after its connection broke.
    static let readinessWindow = Duration.milliseconds(500)

    /// A failure as an unauthenticated caller may read it: what failed and which setting
    /// is behind it, never a file's path or a message that could hold one (the service's
    /// log and `tokenctl config check` name those).
    static func publicDetail(_ error: (any CodedError)?) -> String? {
        guard let error else { return nil }
        let settings = ConfigKeys.named(in: error.message)
        let setting = settings.isEmpty ? "" : " (\(settings.joined(separator: ", ")))"
        return "\(error.code.meaning)\(setting) (\(error.code.rawValue)); tokenctl config check says more"
    }

    /// `GET /metrics`: Prometheus text format 0.0.4.
    func metrics() -> Response {
        Self.body(
            200, contentType: "text/plain; version=0.0.4",
            service.metrics.exposition(database: service.store.connectionFigures))
    }
}

import ErrorCodes
import Hummingbird
import WalletModel

extension APIResponder {
    /// `GET /readyz`: the database open and its schema current, the settings usable, and
    /// not draining.
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
        let driver = service.driver
        let logger = service.logger
        do {
            let status = try await ActivationService.blocking { try driver.status(logger: logger) }
            check("database", nil)
            check("schema", status.isCurrent ? nil : "\(status.pending.count) migration(s) pending: run tokenctl db migrate")
        } catch {
            check("database", (error as? any CodedError).map { "\($0.message) (\($0.code.rawValue))" } ?? "the database cannot be used")
        }
        check("settings", service.pipeline.unusable.map { "\($0.message) (\($0.code.rawValue))" })
        check("draining", service.isDraining ? "the service is stopping" : nil)
        var body = JSONObject(["status": .string(ready ? "pass" : "fail")])
        var members = JSONObject([:])
        for (name, value) in checks { members.append(name, value) }
        body.append("checks", .object(members))
        return Self.json(ready ? 200 : 503, body)
    }

    /// `GET /metrics`: Prometheus text format 0.0.4.
    func metrics() -> Response {
        Self.body(200, contentType: "text/plain; version=0.0.4", service.metrics.exposition())
    }
}

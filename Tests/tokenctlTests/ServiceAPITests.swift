import Foundation
import Sandbox
import TestSupport
import Testing

/// The API of DESIGN §8 through `tokenctl serve`, a real socket and curl: what the process
/// shows (its socket and its mode, the CLI on the same database, the settings it read, its
/// database sessions, a warm process's one TMP connection). The API's cases are tested in
/// process on the same assembly (`TokenctlServiceTests/ServedAPITests`).
@Suite struct ServiceAPITests {
    @Test(arguments: Backend.allCases)
    func anActivationAnswersTheActivateJSONObject(backend: Backend) async throws {
        let service = try await ServiceHarness.start(backend: backend)
        try await withTeardown({ try await service.shutdown() }) {
            #expect(service.listening.first == "listening unix:\(service.socket)")
            var info = stat()
            #expect(stat(service.socket, &info) == 0 && info.st_mode & 0o777 == 0o660)

            let answer = try service.activate("SN100001")
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"] == "application/json")
            let object = try answer.object()
            #expect(
                Array(object.keys).sorted() == [
                    "auditId", "cardLast4Digits", "comment", "error", "exitCode", "httpStatus", "outcome", "requestId",
                    "serialNumber", "tokenUniqueReference",
                ])
            #expect(object["outcome"] as? String == "APPROVED" && object["exitCode"] as? Int == 0)
            #expect(object["serialNumber"] as? String == "…01")
            #expect(object["tokenUniqueReference"] as? String == "DAPL…0001")
            #expect(!answer.body.contains("DAPL00000000000001") && !answer.body.contains("SN100001"))
            #expect(service.sandbox.activationRequestCount == 1)
            #expect(service.sandbox.requests.first?.header("X-Request-ID") == object["requestId"] as? String)

            let again = try service.activate("SN100001")
            #expect(again.status == 200)
            #expect(try again.object()["outcome"] as? String == "ALREADY_ACTIVATED")
            #expect(service.sandbox.activationRequestCount == 1)

            // The CLI on the same database sees what the service did, and the chain holds.
            let audit = try service.activation.auditEntries()
            #expect(audit.map { $0["outcome"] as? String } == ["APPROVED", "ALREADY_ACTIVATED"])
            #expect(try service.cli.run("audit", "verify").status == 0)
        }
    }

    @Test func readyzNamesTheSettingNotTheFile() async throws {
        let activation = try await ActivationHarness.start()
        let token = activation.cli.write("secret-token-file", "s3cret\n")
        chmod(token, 0o644)
        let service = try ServiceHarness.launch(activation, environment: ["TOKENCTL_TMP_AUTH_BEARER_TOKEN_FILE": token])
        try await withTeardown({ try await service.shutdown() }) {
            let ready = try service.request("GET", "/readyz")
            #expect(ready.status == 503)
            #expect(ready.body.contains("tmp.auth.bearer-token-file"))
            #expect(ready.body.contains("config.secretPermissions"))
            #expect(!ready.body.contains("secret-token-file"), "\(ready.body)")
        }
    }

    /// A probe reads the schema on the service's open database: twenty probes open no
    /// PostgreSQL session (the server's own count of sessions established).
    @Test func readyzOpensNoConnectionOfItsOwn() async throws {
        let service = try await ServiceHarness.start(backend: .postgres)
        try await withTeardown({ try await service.shutdown() }) {
            let database = try #require(service.activation.postgres)
            func sessions() throws -> Int {
                let query = "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
                return Int(try database.psql(query).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            }
            #expect(try service.request("GET", "/readyz").status == 200)
            let before = try sessions()
            for _ in 0..<20 { #expect(try service.request("GET", "/readyz").status == 200) }
            // psql's own sessions are counted too (each when it ends), not twenty probes'.
            let after = try sessions()
            #expect(before > 0 && after - before <= 2, "\(before) → \(after) sessions")
        }
    }

    @Test func healthAndMetrics() async throws {
        let service = try await ServiceHarness.start(
            passes: (1...21).map {
                ("SN5000\(String(format: "%02d", $0))", "DAPL000000000000\(String(format: "%02d", $0))")
            })
        try await withTeardown({ try await service.shutdown() }) {
            let live = try service.request("GET", "/livez")
            #expect(live.status == 200 && live.body.trimmingCharacters(in: .newlines) == #"{"status": "pass"}"#)
            let ready = try service.request("GET", "/readyz")
            #expect(try ready.status == 200 && (ready.object()["status"] as? String) == "pass")

            // Activations one after another: a warm service reuses its one TMP connection.
            for number in 1...20 { _ = try service.activate("SN5000\(String(format: "%02d", number))") }
            _ = try service.activate("SN500021", dryRun: true)
            let metrics = try service.request("GET", "/metrics")
            #expect(metrics.status == 200 && metrics.headers["content-type"] == "text/plain; version=0.0.4")
            let values = Self.samples(metrics.body)
            #expect(values[#"tokenctl_activations_total{outcome="APPROVED"}"#] == 20)
            #expect(values[#"tokenctl_activations_total{outcome="ALREADY_ACTIVATED"}"#] == 0)
            #expect(values[#"tokenctl_tmp_requests_total{status_class="2xx"}"#] == 20)
            #expect(values["tokenctl_tmp_connections_opened_total"] == 1)
            #expect(values["tokenctl_activation_duration_seconds_count"] == 20)
            #expect(values["tokenctl_tmp_request_duration_seconds_count"] == 20)
            #expect(values["tokenctl_inflight_activations"] == 0)
            #expect(values[#"tokenctl_build_info{version="0.1.0"}"#] == 1)
            #expect(values[#"tokenctl_http_requests_total{route="/v1/activations",status="200"}"#] == 21)
            #expect(values[#"tokenctl_http_requests_total{route="/livez",status="200"}"#] == 1)
            #expect(metrics.body.contains(#"tokenctl_activation_duration_seconds_bucket{le="0.0005"}"#))
            #expect(metrics.body.contains(#"tokenctl_activation_duration_seconds_bucket{le="30.0"}"#))
            // No identifier in any label.
            #expect(!metrics.body.contains("SN5000") && !metrics.body.contains("DAPL"))
            _ = try service.request("GET", "/v1/passes/SN500001")
            #expect(
                try Self.samples(service.request("GET", "/metrics").body)[
                    #"tokenctl_http_requests_total{route="/v1/passes/{serialNumber}",status="200"}"#] == 1)
        }
    }

    /// `name{labels} value` lines of the exposition format.
    static func samples(_ text: String) -> [String: Double] {
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            values[String(line[..<space])] = value
        }
        return values
    }
}

/// The deeplink handler through the service's socket and through the CLI: the same JSON
/// (but for the attempt's own ids) and the same exit status.
@Suite struct ServiceHandlerTests {
    static let handler = repositoryRoot + "/Deeplinks/tokenctl-handler"

    @Test func theHandlerAnswersTheSameThroughTheSocketAsThroughTheCLI() async throws {
        let references = ["DAPL00000000000001", "SBXDECLINED0002", "SBXFAILED0003"]
        let direct = try await ActivationHarness.start()
        let served = try await ActivationHarness.start()
        try await withTeardown({
            try await direct.stop()
            try await served.stop()
        }) {
            for (index, reference) in references.enumerated() {
                try direct.add("SN90000\(index)", reference)
                try served.add("SN90000\(index)", reference)
            }
            let service = try ServiceHarness.launch(served)
            defer { _ = try? service.stop() }
            let deeplinks =
                references.indices.map { "mybank://activate?serialNumber=SN90000\($0)" } + [
                    "mybank://activate?serialNumber=NOPE", "bad deeplink", "otherbank://x?serialNumber=1",
                ]
            var cliShell = direct.cli, serviceShell = served.cli
            cliShell.environment.merge([
                "TOKENCTL": CLI.binary, "TOKENCTL_SERVICE_SOCKET": direct.cli.directory.file("none.sock"),
            ]) { $1 }
            serviceShell.environment.merge(["TOKENCTL": CLI.binary, "TOKENCTL_SERVICE_SOCKET": service.socket]) { $1 }
            for deeplink in deeplinks {
                let viaCLI = try cliShell.run(executable: Self.handler, [deeplink])
                let viaService = try serviceShell.run(executable: Self.handler, [deeplink])
                #expect(viaCLI.status == viaService.status, "\(deeplink)")
                #expect(Self.withoutIDs(viaCLI.stdout) == Self.withoutIDs(viaService.stdout), "\(deeplink)")
            }
            // The service did the activations that got past parsing.
            #expect(served.sandbox.activationRequestCount == 3)
            let metrics = try service.request("GET", "/metrics").body
            #expect(ServiceAPITests.samples(metrics)[#"tokenctl_activations_total{outcome="APPROVED"}"#] == 1)
        }
    }

    /// The output with the request and audit ids blanked.
    static func withoutIDs(_ text: String) -> String {
        text.replacingOccurrences(
            of: #""requestId": "[0-9a-f-]+""#, with: #""requestId": _"#, options: .regularExpression
        )
        .replacingOccurrences(of: #""auditId": [0-9]+"#, with: #""auditId": _"#, options: .regularExpression)
    }
}

import Foundation
import Sandbox
import TestSupport
import Testing

/// The API of DESIGN §8 through `tokenctl serve`, a real socket and curl, case by case.
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

    /// Each §3 outcome with its HTTP status, and a problem carrying the result when not 200.
    @Test(arguments: [
        ("SBXDECLINED0001", 200, "DECLINED", 2, nil as String?),
        ("SBXFAILED0001", 200, "FAILED", 3, nil),
        ("SBXERROR5001", 502, "UNKNOWN", 69, "tmp.serverError"),
        ("SBXNOTFOUND0001", 502, "ERROR", 76, "tmp.unexpectedStatus"),
    ])
    func outcomesMapToStatuses(
        reference: String, status: Int, outcome: String, exitCode: Int, code: String?
    ) async throws {
        let service = try await ServiceHarness.start(passes: [("SN200001", reference)])
        try await withTeardown({ try await service.shutdown() }) {
            let answer = try service.activate("SN200001")
            #expect(answer.status == status, "\(answer.body)")
            if let code {
                #expect(answer.headers["content-type"] == "application/problem+json")
                let problem = try answer.object()
                #expect(problem["type"] as? String == "urn:tokenctl:error:\(code)")
                #expect(
                    problem["status"] as? Int == status && problem["code"] as? String == code
                        && problem["exitCode"] as? Int == exitCode)
                #expect(problem["title"] is String && problem["detail"] is String)
                let result = try #require(problem["result"] as? [String: Any])
                #expect(result["outcome"] as? String == outcome && result["exitCode"] as? Int == exitCode)
                #expect(result["auditId"] is Int && result["requestId"] is String)
            } else {
                let object = try answer.object()
                #expect(object["outcome"] as? String == outcome && object["exitCode"] as? Int == exitCode)
            }
        }
    }

    @Test func refusalsThatAnActivationStandsBehindCarryItsResult() async throws {
        let service = try await ServiceHarness.start()
        try await withTeardown({ try await service.shutdown() }) {
            let missing = try service.activate("NOPE0001")
            #expect(missing.status == 404)
            let problem = try missing.object()
            #expect(problem["code"] as? String == "wallet.notFound" && problem["exitCode"] as? Int == 66)
            #expect((problem["result"] as? [String: Any])?["outcome"] as? String == "ERROR")

            let bad = try service.request(
                "POST", "/v1/activations", body: #"{"deeplink": "otherbank://activate?serialNumber=SN100001"}"#)
            #expect(bad.status == 400)
            #expect(try bad.object()["code"] as? String == "deeplink.formatMismatch")
            #expect(try bad.object()["exitCode"] as? Int == 65)

            let dry = try service.activate("SN100001", dryRun: true)
            #expect(dry.status == 200)
            #expect(try dry.object()["outcome"] as? String == "DRY_RUN")
            #expect(service.sandbox.activationRequestCount == 0)
            #expect(try service.activation.state("SN100001") == ["requiresActivation"])
        }
    }

    /// Requests the API cannot read: their documented 4xx, and nothing written.
    @Test func requestsTheAPICannotReadWriteNothing() async throws {
        let service = try await ServiceHarness.start()
        try await withTeardown({ try await service.shutdown() }) { () async throws in
            let big =
                #"{"deeplink": "mybank://activate?serialNumber=SN100001", "pad": ""#
                + String(repeating: "x", count: 65_536)
                + #""}"#
            let cases: [(HTTPAnswer, Int, String)] = [
                (try service.request("POST", "/v1/activations", body: "not json"), 400, "request.invalid"),
                (
                    try service.request("POST", "/v1/activations", body: #"{"serial": "SN100001"}"#), 400,
                    "request.invalid"
                ),
                (try service.request("POST", "/v1/activations", body: big), 413, "request.tooLarge"),
                (
                    try service.request(
                        "POST", "/v1/activations", body: #"{"deeplink": "mybank://activate?serialNumber=SN100001"}"#,
                        contentType: "text/plain"), 415, "request.unsupportedMediaType"
                ),
                (
                    try service.request("POST", "/v1/activations/batch", body: "x", contentType: "application/json"),
                    415,
                    "request.unsupportedMediaType"
                ),
                (try service.request("GET", "/v2/nothing"), 404, "request.notFound"),
                (try service.request("GET", "/v1/activations"), 405, "request.methodNotAllowed"),
                (try service.request("POST", "/metrics", body: "{}"), 405, "request.methodNotAllowed"),
                (
                    try service.activate(
                        "SN100001", headers: ["Idempotency-Key: " + String(repeating: "k", count: 256)]),
                    400, "request.invalid"
                ),
                (try service.request("GET", "/v1/audit?limit=0"), 400, "request.invalid"),
                (try service.request("GET", "/v1/audit?reveal=true"), 400, "request.invalid"),
            ]
            for (answer, status, code) in cases {
                #expect(answer.status == status, "\(answer.body)")
                #expect(answer.headers["content-type"] == "application/problem+json")
                let problem = try answer.object()
                #expect(
                    problem["code"] as? String == code && problem["exitCode"] as? Int == 64
                        && problem["status"] as? Int == status)
                #expect(problem["type"] as? String == "urn:tokenctl:error:\(code)")
            }
            #expect(cases[6].0.headers["allow"] == "POST" && cases[7].0.headers["allow"] == "GET")
            #expect(service.sandbox.activationRequestCount == 0)
            #expect(try service.activation.auditEntries().isEmpty)
            #expect(try service.activation.state("SN100001") == ["requiresActivation"])
        }
    }

    @Test func theBatchStreamsResultsInInputOrder() async throws {
        let service = try await ServiceHarness.start(passes: [
            ("SN300001", "DAPL00000000000001"), ("SN300002", "SBXDECLINED0002"), ("SN300003", "DAPL00000000000003"),
        ])
        try await withTeardown({ try await service.shutdown() }) {
            let text =
                "mybank://activate?serialNumber=SN300001\n\nnot a deeplink\r\nmybank://activate?serialNumber=SN300002\nmybank://activate?serialNumber=NOPE\n"
            let answer = try service.request("POST", "/v1/activations/batch", body: text, contentType: "text/plain")
            #expect(answer.status == 200 && answer.headers["content-type"] == "application/x-ndjson")
            let lines = try answer.lines()
            #expect(lines.map { $0["line"] as? Int } == [1, 3, 4, 5])
            #expect(lines.map { $0["outcome"] as? String } == ["APPROVED", "ERROR", "DECLINED", "ERROR"])
            #expect(lines.map { $0["exitCode"] as? Int } == [0, 65, 2, 66])
            #expect(!answer.body.contains("SN300001"))

            let objects =
                #"{"deeplink": "mybank://activate?serialNumber=SN300003"}"# + "\n" + #"{"deeplink": 1}"# + "\n"
            let ndjson = try service.request(
                "POST", "/v1/activations/batch", body: objects, contentType: "application/x-ndjson")
            let results = try ndjson.lines()
            #expect(results.map { $0["outcome"] as? String } == ["APPROVED", "ERROR"])
            #expect((results[1]["error"] as? [String: Any])?["code"] as? String == "request.invalid")
            #expect(results[1]["exitCode"] as? Int == 64)
            #expect(service.sandbox.activationRequestCount == 3)
            #expect(try service.cli.run("audit", "verify").status == 0)
        }
    }

    @Test func passesAndAuditAreReadMasked() async throws {
        let service = try await ServiceHarness.start(passes: [
            ("SN400001", "DAPL00000000000001"), ("SN400002", "DAPL00000000000002"),
        ])
        try await withTeardown({ try await service.shutdown() }) {
            _ = try service.activate("SN400001")
            _ = try service.activate("SN400002")
            _ = try service.activate("SN400001")

            let passes = try service.request("GET", "/v1/passes/SN400001")
            #expect(passes.status == 200)
            let records = try #require(try passes.json() as? [[String: Any]])
            #expect(records.count == 1 && records[0]["state"] as? String == "activated")
            #expect(records[0]["deviceAccountIdentifier"] as? String == "DAPL…0001")
            #expect(!passes.body.contains("DAPL00000000000001"))
            let none = try service.request("GET", "/v1/passes/NOPE")
            #expect(none.status == 404)
            #expect(
                try none.object()["code"] as? String == "wallet.notFound"
                    && none.headers["content-type"] == "application/problem+json")

            let all = try #require(try service.request("GET", "/v1/audit").json() as? [[String: Any]])
            #expect(all.map { $0["outcome"] as? String } == ["APPROVED", "APPROVED", "ALREADY_ACTIVATED"])
            let newest = try #require(try service.request("GET", "/v1/audit?limit=2").json() as? [[String: Any]])
            #expect(newest.map { $0["id"] as? Int } == all.suffix(2).map { $0["id"] as? Int })
            let one = try #require(
                try service.request("GET", "/v1/audit?serial=SN400002&outcome=APPROVED").json() as? [[String: Any]])
            #expect(one.count == 1 && one[0]["tokenUniqueReference"] as? String == "DAPL…0002")
            let later = try #require(
                try service.request("GET", "/v1/audit?since=2999-01-01").json() as? [[String: Any]])
            #expect(later.isEmpty)
            // The dates the document allows: days 29 to 31, fractions and offsets.
            for since in [
                "2026-01-31", "2026-01-29T06:10:00.250%2B02:00", "2026-03-30T23:59:60Z", "2026-12-31%2006:10-05:30",
            ] {
                #expect(try service.request("GET", "/v1/audit?since=\(since)").status == 200, "\(since)")
            }
        }
    }

    @Test func theAuditIsReadAPageAtATimeWithTheNextPageNamed() async throws {
        let service = try await ServiceHarness.start(passes: (1...5).map { ("SN41000\($0)", "DAPL0000000041000\($0)") })
        try await withTeardown({ try await service.shutdown() }) {
            for index in 1...5 { _ = try service.activate("SN41000\(index)") }
            var ids: [Int] = []
            var path: String? = "/v1/audit?outcome=APPROVED&limit=2"
            var pages = 0
            while let next = path {
                let page = try service.request("GET", next)
                #expect(page.status == 200)
                let entries = try #require(try page.json() as? [[String: Any]])
                // Each page oldest first, each older than the one before.
                ids = entries.compactMap { $0["id"] as? Int } + ids
                pages += 1
                path = page.headers["link"].flatMap { $0.firstMatch(of: /<([^>]+)>; rel="next"/).map { String($0.1) } }
                #expect(path == nil || path!.contains("outcome=APPROVED"))
            }
            #expect(pages == 3)
            #expect(ids == ids.sorted() && ids.count == 5 && Set(ids).count == 5)
            // Without a limit, a page is 100 entries at most; the whole audit fits here.
            let whole = try service.request("GET", "/v1/audit")
            #expect(whole.headers["link"] == nil)
            #expect(try (whole.json() as? [Any])?.count == 5)
            #expect(try service.request("GET", "/v1/audit?before=0").status == 400)
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

import Foundation
import HTTPTypes
import TestSupport
import Testing
import WalletModel

@testable import TokenctlService

/// The API of DESIGN §8 case by case, as the service serves it, in process: outcomes and their
/// statuses, refusals, the batch stream, masked reads, the audit's pages, keyed repeats that
/// differ and unknown members.
@Suite struct ServedAPITests {
    /// Runs `body` with a client of a service whose wallet holds `passes`.
    static func serving(
        _ passes: [(String, String)], _ body: (APIRouterTests.Fixture, ServedClient) async throws -> Void
    ) async throws {
        let fixture = try await APIRouterTests.Fixture.start(passes: passes)
        try await withTeardown({ try await fixture.stop() }) {
            try await fixture.served { try await body(fixture, $0) }
        }
    }

    /// The states of a serial's passes, read through the API.
    static func states(_ serial: String, _ client: ServedClient) async throws -> [String] {
        let records = try #require(try await client.request(.get, "/v1/passes/\(serial)").json() as? [[String: Any]])
        return records.compactMap { $0["state"] as? String }
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
        try await Self.serving([("SN200001", reference)]) { _, client in
            let answer = try await client.activate("SN200001")
            #expect(Int(answer.status.code) == status, "\(answer.text)")
            if let code {
                #expect(answer.header("Content-Type") == "application/problem+json")
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
        try await Self.serving([("SN100001", "DAPL00000000000001")]) { fixture, client in
            let missing = try await client.activate("NOPE0001")
            #expect(missing.status.code == 404)
            let problem = try missing.object()
            #expect(problem["code"] as? String == "wallet.notFound" && problem["exitCode"] as? Int == 66)
            #expect((problem["result"] as? [String: Any])?["outcome"] as? String == "ERROR")

            let bad = try await client.request(
                .post, "/v1/activations", body: #"{"deeplink": "otherbank://activate?serialNumber=SN100001"}"#)
            #expect(bad.status.code == 400)
            #expect(try bad.object()["code"] as? String == "deeplink.formatMismatch")
            #expect(try bad.object()["exitCode"] as? Int == 65)

            let dry = try await client.activate("SN100001", dryRun: true)
            #expect(dry.status.code == 200)
            #expect(try dry.object()["outcome"] as? String == "DRY_RUN")
            #expect(fixture.sandbox.activationRequestCount == 0)
            #expect(try await Self.states("SN100001", client) == ["requiresActivation"])
        }
    }

    /// Requests the API cannot read: their documented 4xx, and nothing written.
    @Test func requestsTheAPICannotReadWriteNothing() async throws {
        try await Self.serving([("SN100001", "DAPL00000000000001")]) { fixture, client in
            let big =
                #"{"deeplink": "mybank://activate?serialNumber=SN100001", "pad": ""#
                + String(repeating: "x", count: 65_536) + #""}"#
            let longKey: HTTPFields = [HTTPField.Name("Idempotency-Key")!: String(repeating: "k", count: 256)]
            let cases: [(ServedClient.Response, Int, String)] = [
                (try await client.request(.post, "/v1/activations", body: "not json"), 400, "request.invalid"),
                (
                    try await client.request(.post, "/v1/activations", body: #"{"serial": "SN100001"}"#), 400,
                    "request.invalid"
                ),
                (try await client.request(.post, "/v1/activations", body: big), 413, "request.tooLarge"),
                (
                    try await client.request(
                        .post, "/v1/activations", body: #"{"deeplink": "mybank://activate?serialNumber=SN100001"}"#,
                        contentType: "text/plain"), 415, "request.unsupportedMediaType"
                ),
                (
                    try await client.request(.post, "/v1/activations/batch", body: "x"), 415,
                    "request.unsupportedMediaType"
                ),
                (try await client.request(.get, "/v2/nothing"), 404, "request.notFound"),
                (try await client.request(.get, "/v1/activations"), 405, "request.methodNotAllowed"),
                (try await client.request(.post, "/metrics", body: "{}"), 405, "request.methodNotAllowed"),
                (try await client.activate("SN100001", headers: longKey), 400, "request.invalid"),
                (try await client.request(.get, "/v1/audit?limit=0"), 400, "request.invalid"),
                (try await client.request(.get, "/v1/audit?reveal=true"), 400, "request.invalid"),
            ]
            for (answer, status, code) in cases {
                #expect(Int(answer.status.code) == status, "\(answer.text)")
                #expect(answer.header("Content-Type") == "application/problem+json")
                let problem = try answer.object()
                #expect(
                    problem["code"] as? String == code && problem["exitCode"] as? Int == 64
                        && problem["status"] as? Int == status)
                #expect(problem["type"] as? String == "urn:tokenctl:error:\(code)")
            }
            #expect(cases[6].0.header("Allow") == "POST" && cases[7].0.header("Allow") == "GET")
            #expect(fixture.sandbox.activationRequestCount == 0)
            #expect(try (await client.request(.get, "/v1/audit").json() as? [Any])?.isEmpty == true)
            #expect(try await Self.states("SN100001", client) == ["requiresActivation"])
        }
    }

    @Test func theBatchStreamsResultsInInputOrder() async throws {
        let passes = [
            ("SN300001", "DAPL00000000000001"), ("SN300002", "SBXDECLINED0002"), ("SN300003", "DAPL00000000000003"),
        ]
        try await Self.serving(passes) { fixture, client in
            let text =
                "mybank://activate?serialNumber=SN300001\n\nnot a deeplink\r\nmybank://activate?serialNumber=SN300002\nmybank://activate?serialNumber=NOPE\n"
            let answer = try await client.request(.post, "/v1/activations/batch", body: text, contentType: "text/plain")
            #expect(answer.status == .ok && answer.header("Content-Type") == "application/x-ndjson")
            let lines = try answer.lines()
            #expect(lines.map { $0["line"] as? Int } == [1, 3, 4, 5])
            #expect(lines.map { $0["outcome"] as? String } == ["APPROVED", "ERROR", "DECLINED", "ERROR"])
            #expect(lines.map { $0["exitCode"] as? Int } == [0, 65, 2, 66])
            #expect(!answer.text.contains("SN300001"))

            let objects =
                #"{"deeplink": "mybank://activate?serialNumber=SN300003"}"# + "\n" + #"{"deeplink": 1}"# + "\n"
            let ndjson = try await client.request(
                .post, "/v1/activations/batch", body: objects, contentType: "application/x-ndjson")
            let results = try ndjson.lines()
            #expect(results.map { $0["outcome"] as? String } == ["APPROVED", "ERROR"])
            #expect((results[1]["error"] as? [String: Any])?["code"] as? String == "request.invalid")
            #expect(results[1]["exitCode"] as? Int == 64)
            #expect(fixture.sandbox.activationRequestCount == 3)
        }
    }

    @Test func passesAndAuditAreReadMasked() async throws {
        try await Self.serving([("SN400001", "DAPL00000000000001"), ("SN400002", "DAPL00000000000002")]) {
            _, client in
            _ = try await client.activate("SN400001")
            _ = try await client.activate("SN400002")
            _ = try await client.activate("SN400001")

            let passes = try await client.request(.get, "/v1/passes/SN400001")
            #expect(passes.status == .ok)
            let records = try #require(try passes.json() as? [[String: Any]])
            #expect(records.count == 1 && records[0]["state"] as? String == "activated")
            #expect(records[0]["deviceAccountIdentifier"] as? String == "DAPL…0001")
            #expect(!passes.text.contains("DAPL00000000000001"))
            let none = try await client.request(.get, "/v1/passes/NOPE")
            #expect(none.status == .notFound)
            #expect(
                try none.object()["code"] as? String == "wallet.notFound"
                    && none.header("Content-Type") == "application/problem+json")

            let all = try #require(try await client.request(.get, "/v1/audit").json() as? [[String: Any]])
            #expect(all.map { $0["outcome"] as? String } == ["APPROVED", "APPROVED", "ALREADY_ACTIVATED"])
            let newest = try #require(try await client.request(.get, "/v1/audit?limit=2").json() as? [[String: Any]])
            #expect(newest.map { $0["id"] as? Int } == all.suffix(2).map { $0["id"] as? Int })
            let one = try #require(
                try await client.request(.get, "/v1/audit?serial=SN400002&outcome=APPROVED").json() as? [[String: Any]])
            #expect(one.count == 1 && one[0]["tokenUniqueReference"] as? String == "DAPL…0002")
            let later = try #require(
                try await client.request(.get, "/v1/audit?since=2999-01-01").json() as? [[String: Any]])
            #expect(later.isEmpty)
            // The dates the document allows: days 29 to 31, fractions and offsets.
            for since in [
                "2026-01-31", "2026-01-29T06:10:00.250%2B02:00", "2026-03-30T23:59:60Z", "2026-12-31%2006:10-05:30",
            ] {
                #expect(try await client.request(.get, "/v1/audit?since=\(since)").status == .ok, "\(since)")
            }
        }
    }

    @Test func theAuditIsReadAPageAtATimeWithTheNextPageNamed() async throws {
        try await Self.serving((1...5).map { ("SN41000\($0)", "DAPL0000000041000\($0)") }) { _, client in
            for index in 1...5 { _ = try await client.activate("SN41000\(index)") }
            var ids: [Int] = []
            var path: String? = "/v1/audit?outcome=APPROVED&limit=2"
            var pages = 0
            while let next = path {
                let page = try await client.request(.get, next)
                #expect(page.status == .ok)
                let entries = try #require(try page.json() as? [[String: Any]])
                // Each page oldest first, each older than the one before.
                ids = entries.compactMap { $0["id"] as? Int } + ids
                pages += 1
                path = page.header("Link").flatMap { $0.firstMatch(of: /<([^>]+)>; rel="next"/).map { String($0.1) } }
                #expect(path == nil || path!.contains("outcome=APPROVED"))
            }
            #expect(pages == 3)
            #expect(ids == ids.sorted() && ids.count == 5 && Set(ids).count == 5)
            // Without a limit, a page is 100 entries at most; the whole audit fits here.
            let whole = try await client.request(.get, "/v1/audit")
            #expect(whole.header("Link") == nil)
            #expect(try (whole.json() as? [Any])?.count == 5)
            #expect(try await client.request(.get, "/v1/audit?before=0").status == .badRequest)
        }
    }

    @Test func aKeyedRepeatThatDiffersInDryRunOrDeviceIsAMismatch() async throws {
        try await Self.serving([("SN730001", "DAPL00000000730001")]) { fixture, client in
            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "dry-1"]
            let dry = try await client.activate("SN730001", dryRun: true, headers: key)
            #expect(dry.status == .ok)
            #expect(try dry.object()["outcome"] as? String == "DRY_RUN")
            let real = try await client.activate("SN730001", headers: key)
            #expect(real.status.code == 422)
            #expect(try real.object()["code"] as? String == "idempotency.mismatch")
            let device = try await client.request(
                .post, "/v1/activations",
                body: #"{"deeplink": "mybank://activate?serialNumber=SN730001", "dryRun": true, "device": "Watch"}"#,
                headers: key)
            #expect(device.status.code == 422)
            // A scheme in another case is the same deeplink.
            let upper = try await client.request(
                .post, "/v1/activations",
                body: #"{"deeplink": "MYBANK://activate?serialNumber=SN730001", "dryRun": true}"#,
                headers: key)
            #expect(upper.status == .ok && upper.header("Idempotent-Replayed") == "true")
            #expect(fixture.sandbox.activationRequestCount == 0)
            #expect(try await Self.states("SN730001", client) == ["requiresActivation"])
        }
    }

    @Test func anUnknownMemberIsRefusedByNameAndNothingIsSent() async throws {
        try await Self.serving([("SN740001", "DAPL00000000740001"), ("SN740002", "DAPL00000000740002")]) {
            fixture, client in
            let single = try await client.request(
                .post, "/v1/activations",
                body: #"{"deeplink": "mybank://activate?serialNumber=SN740001", "dryrun": true}"#)
            #expect(single.status == .badRequest)
            #expect(try single.object()["code"] as? String == "request.invalid")
            #expect(try (single.object()["detail"] as? String)?.contains(#""dryrun""#) == true)

            let batch = try await client.request(
                .post, "/v1/activations/batch",
                body: """
                    {"deeplink": "mybank://activate?serialNumber=SN740001", "dryrun": true}
                    {"deeplink": "mybank://activate?serialNumber=SN740002", "dryRun": true}
                    """, contentType: "application/x-ndjson")
            #expect(batch.status == .ok)
            let lines = try batch.lines()
            #expect(lines.count == 2)
            #expect((lines[0]["error"] as? [String: Any])?["code"] as? String == "request.invalid")
            #expect(lines[1]["outcome"] as? String == "DRY_RUN")
            #expect(fixture.sandbox.activationRequestCount == 0)
            #expect(try await Self.states("SN740001", client) == ["requiresActivation"])
            #expect(try await Self.states("SN740002", client) == ["requiresActivation"])
        }
    }

    /// A batch line's own `dryRun` and `device` hold for that line alone.
    @Test func aBatchLineHonoursDryRunAndDevice() async throws {
        let fixture = try await APIRouterTests.Fixture.start(
            passes: [("SN750001", "DAPL00000000750001")],
            records: [
                PassRecord(serialNumber: "SN750002", deviceAccountIdentifier: "DAPL00000000750002", device: "iPhone"),
                PassRecord(serialNumber: "SN750002", deviceAccountIdentifier: "DAPL00000000750003", device: "Watch"),
            ])
        try await withTeardown({ try await fixture.stop() }) {
            try await fixture.served { client in
                let batch = try await client.request(
                    .post, "/v1/activations/batch",
                    body: """
                        {"deeplink": "mybank://activate?serialNumber=SN750001", "dryRun": true}
                        {"deeplink": "mybank://activate?serialNumber=SN750002", "device": "Watch"}
                        """, contentType: "application/x-ndjson")
                let lines = try batch.lines()
                #expect(lines.map { $0["outcome"] as? String } == ["DRY_RUN", "APPROVED"])
                #expect(fixture.sandbox.activatedReferences == ["DAPL00000000750003"])
                #expect(try await Self.states("SN750001", client) == ["requiresActivation"])
                #expect(try await Self.states("SN750002", client).sorted() == ["activated", "requiresActivation"])
            }
        }
    }

    /// A keyed repeat while the first request is at TMP: 409 `activation.inProgress` (75), and
    /// the first is answered; one request reaches TMP.
    @Test func aRepeatWhileTheFirstRunsIs409() async throws {
        let fixture = try await APIRouterTests.Fixture.start(
            passes: [("SN610001", "SBXSLOW0001")], slowDelay: .seconds(8))
        try await withTeardown({ try await fixture.stop() }) {
            try await fixture.served { client in
                let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "slow-1"]
                let first = Task { try await client.activate("SN610001", headers: key) }
                let deadline = ContinuousClock.now + .seconds(30)
                while fixture.sandbox.activationRequestCount == 0, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
                let second = try await client.activate("SN610001", headers: key)
                #expect(second.status == .conflict)
                #expect(try second.object()["code"] as? String == "activation.inProgress")
                #expect(try second.object()["exitCode"] as? Int == 75)
                let answered = try await first.value
                #expect(answered.status == .ok)
                #expect(try answered.object()["outcome"] as? String == "APPROVED")
                #expect(fixture.sandbox.activationRequestCount == 1)
            }
        }
    }
}

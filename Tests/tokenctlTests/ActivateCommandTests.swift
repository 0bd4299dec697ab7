import Foundation
import Sandbox
import TestSupport
import Testing

@Suite struct ActivateCommandTests {
    @Test func approvedActivatesThePassAndASecondRunSendsNothing() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1234567890", "DAPL00000000001234", device: "iPhone")

            let result = try harness.activate("SN1234567890")
            #expect(result.status == 0, "\(result.stderr)")
            let json = result.object
            #expect(
                Array(json.keys).sorted() == [
                    "auditId", "cardLast4Digits", "comment", "error", "exitCode", "httpStatus", "outcome", "requestId",
                    "serialNumber", "tokenUniqueReference",
                ])
            #expect(json["outcome"] as? String == "APPROVED")
            #expect(json["exitCode"] as? Int == 0)
            #expect(json["serialNumber"] as? String == "SN12…7890")
            #expect(json["tokenUniqueReference"] as? String == "DAPL…1234")
            #expect(json["cardLast4Digits"] as? String == "1234")
            #expect(json["httpStatus"] as? Int == 200)
            #expect(json["error"] is NSNull)
            #expect(!result.stdout.contains("DAPL00000000001234"))

            // Exactly one request, as the contract says, counted by the sandbox itself.
            #expect(harness.sandbox.activationRequestCount == 1)
            let request = try #require(harness.sandbox.requests.first)
            #expect(request.body == Array(#"{"tokenUniqueReference": "DAPL00000000001234"}"#.utf8))
            #expect(request.header("Content-Type") == "application/json")
            #expect(request.header("Accept") == "application/json")
            #expect(request.header("X-Request-ID") == json["requestId"] as? String)
            #expect(request.header("Authorization") == nil)
            #expect(try harness.state("SN1234567890") == ["activated"])

            let again = try harness.activate("SN1234567890")
            #expect(again.status == 0)
            #expect(again.outcome == "ALREADY_ACTIVATED")
            #expect(harness.sandbox.activationRequestCount == 1)

            let audit = try harness.auditEntries()
            #expect(audit.map { $0["outcome"] as? String } == ["APPROVED", "ALREADY_ACTIVATED"])
            #expect(audit[0]["requestId"] as? String == json["requestId"] as? String)
            #expect(audit[0]["tokenUniqueReference"] as? String == "DAPL00000000001234")
            #expect(audit[0]["latencyMs"] is Int)
            #expect(try harness.cli.run("audit", "verify").status == 0)
        }
    }

    @Test(arguments: [
        ("SBXDECLINED0001", "DECLINED", Int32(2), nil as String?, 200 as Int?),
        ("SBXFAILED0001", "FAILED", 3, nil, 200),
        ("SBXERROR5001", "UNKNOWN", 69, "tmp.serverError", 500),
        ("SBXDROP0001", "UNKNOWN", 69, "tmp.connectionLost", nil),
        ("SBXNOTFOUND0001", "ERROR", 76, "tmp.unexpectedStatus", 404),
        ("SBXREDIRECT0001", "ERROR", 76, "tmp.redirect", 302),
        ("SBXMALFORMED0001", "ERROR", 76, "tmp.invalidBody", 200),
        ("SBXEMPTY0001", "ERROR", 76, "tmp.invalidBody", 200),
        ("SBXUNKNOWN0001", "ERROR", 76, "tmp.unknownStatus", 200),
        ("SBXLOWERCASE0001", "ERROR", 76, "tmp.unknownStatus", 200),
    ])
    func answersMapToOutcomesAndExitCodes(
        reference: String, outcome: String, status: Int32, code: String?, http: Int?
    ) async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", reference)
            let result = try harness.activate("SN1")
            #expect(result.status == status, "\(result.stderr)")
            #expect(result.outcome == outcome)
            #expect(result.errorCode == code)
            #expect(result.object["httpStatus"] as? Int == http)
            #expect(harness.sandbox.activationRequestCount == 1)
            // Only APPROVED activates: a new run is an explicit retry.
            #expect(try harness.state("SN1") == ["requiresActivation"])
            let entry = try #require(try harness.auditEntries().first)
            #expect(entry["outcome"] as? String == outcome)
            #expect(entry["errorCode"] as? String == code)
        }
    }

    @Test func aTimeoutAfterSendingIsUnknownAndNotRetried() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .seconds(2))
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", "SBXSLOW0001")
            let result = try harness.activate("SN1", environment: ["TOKENCTL_TMP_TIMEOUT_MS": "300"])
            #expect(result.status == 69)
            #expect(result.outcome == "UNKNOWN")
            #expect(result.errorCode == "tmp.timeout")
            #expect(harness.sandbox.activationRequestCount == 1)
        }
    }

    @Test func aServerThatIsDownIsRetriedBecauseNothingWasSent() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", "DAPL1")
            let port = try unusedPort()
            let started = ContinuousClock.now
            let result = try harness.activate("SN1", environment: ["TOKENCTL_TMP_BASE_URL": "http://127.0.0.1:\(port)"])
            #expect(result.status == 69)
            #expect(result.outcome == "ERROR")
            #expect(result.errorCode == "tmp.connectionRefused")
            // Words, not the HTTP library's text (which a debug log keeps).
            #expect(
                result.stderr.contains("TMP could not be reached (the connection was refused); nothing was sent"),
                "\(result.stderr)")
            #expect(
                !result.stderr.contains("Failed to connect") && !result.stderr.contains("Couldn't connect"),
                "\(result.stderr)")
            // three tries, 100 and 300 ms apart
            #expect(ContinuousClock.now - started >= .milliseconds(400))
            #expect(try harness.state("SN1") == ["requiresActivation"])
        }
    }

    @Test(arguments: [
        ("SN-MISSING", "wallet.notFound"),
        ("SNPAIR", "wallet.ambiguous"),
        ("SNSUSPENDED", "wallet.notActivatable"),
        ("SNDEACTIVATED", "wallet.notActivatable"),
    ])
    func noActivatablePassExits66AndSendsNothing(serial: String, code: String) async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SNPAIR", "DAPLPHONE", device: "iPhone")
            try harness.add("SNPAIR", "DAPLWATCH", device: "Watch")
            try harness.add("SNSUSPENDED", "DAPLS", state: "suspended")
            try harness.add("SNDEACTIVATED", "DAPLD", state: "deactivated")
            let result = try harness.activate(serial)
            #expect(result.status == 66)
            #expect(result.outcome == "ERROR")
            #expect(result.errorCode == code)
            #expect(harness.sandbox.activationRequestCount == 0)
            #expect(try harness.auditEntries().map { $0["errorCode"] as? String } == [code])
        }
    }

    @Test func theDeviceNamesOneOfTwoPassesWithASerial() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SNPAIR", "DAPLPHONE", device: "iPhone")
            try harness.add("SNPAIR", "DAPLWATCH", device: "Watch")
            let result = try harness.activate("SNPAIR", ["--device", "Watch", "--reveal"])
            #expect(result.status == 0)
            #expect(result.object["tokenUniqueReference"] as? String == "DAPLWATCH")
            // With the Watch activated, the iPhone pass is the only one left waiting.
            #expect(
                try harness.activate("SNPAIR", ["--reveal"]).object["tokenUniqueReference"] as? String == "DAPLPHONE")
            #expect(harness.sandbox.activationRequestCount == 2)
        }
    }

    @Test(arguments: [
        "mybank://activate?serialNumber=SN1&serialNumber=SN1",
        "otherbank://activate?serialNumber=SN1",
        "mybank://activate?serialNumber=SN1#x",
        "mybank://activate?serialNumber=%FF",
        "mybank://activate?serialNumber=SN%E2%80%AE1",
    ])
    func aBadDeeplinkExits65WithoutAuditOrRequest(deeplink: String) async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", "DAPL1")
            let result = try harness.cli.run(["activate", deeplink, "--json"])
            #expect(result.status == 65)
            #expect(result.errorCode?.hasPrefix("deeplink.") == true)
            #expect(!result.stderr.contains(deeplink), "a raw deeplink is never printed")
            #expect(harness.sandbox.activationRequestCount == 0)
            #expect(try harness.auditEntries().isEmpty)
        }
    }

    @Test func dryRunResolvesButSendsAndWritesNothing() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1234567890", "DAPL00000000001234")
            let result = try harness.cli.run("activate", "mybank://activate?serialNumber=SN1234567890", "--dry-run")
            #expect(result.status == 0)
            #expect(result.stdout.contains("dry run: would POST"))
            #expect(result.stdout.contains("DAPL…1234"))
            #expect(result.stdout.contains(harness.sandbox.baseURL + "/issuer/push-provisioning/tokens/activations"))
            #expect(harness.sandbox.activationRequestCount == 0)
            #expect(try harness.auditEntries().isEmpty)
            #expect(try harness.state("SN1234567890") == ["requiresActivation"])
            #expect(try harness.activate("SN-NONE", ["--dry-run"]).status == 66)
        }
    }

    @Test func plainHTTPToANonLoopbackHostIsRefusedAndAudited() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", "DAPL1")
            let result = try harness.activate("SN1", environment: ["TOKENCTL_TMP_BASE_URL": "http://tmp.example.com"])
            #expect(result.status == 78)
            #expect(result.errorCode == "config.insecureURL")
            #expect(try harness.auditEntries().map { $0["errorCode"] as? String } == ["config.insecureURL"])
            #expect(try harness.state("SN1") == ["requiresActivation"])
        }
    }

    @Test func theBearerTokenIsSentAndNeverPrinted() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", "DAPL1")
            let token = "s3cr3t-bearer-token-value"
            let path = harness.cli.write("tmp.token", token + "\n")
            chmod(path, 0o600)
            let config = harness.cli.write("config.json", #"{"tmp": {"auth": {"bearer-token-file": "tmp.token"}}}"#)
            let result = try harness.cli.run([
                "activate", "mybank://activate?serialNumber=SN1", "--config", config, "--log-level", "trace",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(harness.sandbox.requests.first?.header("Authorization") == "Bearer " + token)
            #expect(!result.stdout.contains(token) && !result.stderr.contains(token))

            chmod(path, 0o644)
            try harness.add("SN2", "DAPL2")
            let loose = try harness.cli.run(["activate", "mybank://activate?serialNumber=SN2", "--config", config])
            #expect(loose.status == 78)
            #expect(loose.stderr.contains("chmod 600"))
            #expect(loose.stderr.contains("config.secretPermissions"))

            let missing = try harness.cli.run(
                ["activate", "mybank://activate?serialNumber=SN2", "--json"],
                environment: ["TOKENCTL_TMP_AUTH_BEARER_TOKEN_FILE": harness.cli.directory.file("absent.token")])
            #expect(missing.status == 78)
            #expect(missing.errorCode == "config.secretMissing")
            #expect(harness.sandbox.activationRequestCount == 1)
        }
    }

    @Test func anAPIKeyHeaderCarriesTheKeyFromTheEnvironment() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", "DAPL1")
            try harness.add("SN2", "DAPL2")
            let key = "api-key-0123456789"
            let result = try harness.activate(
                "SN1", environment: ["TOKENCTL_TMP_AUTH_API_KEY_HEADER": "X-Api-Key", "TOKENCTL_TMP_API_KEY": key])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(harness.sandbox.requests.first?.header("X-Api-Key") == key)
            #expect(harness.sandbox.requests.first?.header("Authorization") == nil)
            #expect(!result.stdout.contains(key) && !result.stderr.contains(key))
            let withoutKey = try harness.activate("SN2", environment: ["TOKENCTL_TMP_AUTH_API_KEY_HEADER": "X-Api-Key"])
            #expect(withoutKey.status == 78)
            #expect(withoutKey.errorCode == "config.secretMissing")
            #expect(harness.sandbox.activationRequestCount == 1)
        }
    }

    /// With no device activation stored, the gate's answer is local: 77 and the next
    /// step, without the PowerAuth settings a server call would need.
    @Test func aRequiredUserActivationWithNothingStoredIsAnsweredLocally() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SN1", "DAPL1")
            let result = try harness.activate(
                "SN1", environment: ["TOKENCTL_ONBOARDING_REQUIRE_FINISHED_USER_ACTIVATION": "true"])
            #expect(result.status == 77)
            #expect(result.errorCode == "user.activationRequired")
            #expect(
                result.stderr.contains(
                    "this installation has no user activation; run `tokenctl onboarding start --credentials JSON`"))
            #expect(harness.sandbox.activationRequestCount == 0)
            #expect(try harness.auditEntries().map { $0["errorCode"] as? String } == ["user.activationRequired"])
        }
    }
}

/// `tokenctl activate DEEPLINK`, the handler's form, runs without the argument parser; it
/// must answer exactly what the parsed command answers.
@Suite struct PlainActivateFormTests {
    static func normalized(_ text: String) -> String {
        text.replacingOccurrences(
            of: #"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"#, with: "ID",
            options: .regularExpression
        )
        .replacingOccurrences(of: #"\d+ ms"#, with: "N ms", options: .regularExpression)
    }

    @Test(arguments: [
        "mybank://activate?serialNumber=SN1",  // approved
        "mybank://activate?serialNumber=SN2",  // declined
        "mybank://activate?serialNumber=SN404",  // no such pass
        "otherbank://activate?serialNumber=SN1",  // not a configured format
        "help",
        "--json",
    ])
    func thePlainFormAnswersAsTheParsedOne(deeplink: String) async throws {
        var answers: [(Int32, String, String)] = []
        for extra in [[], ["--log-level", "warning"]] {
            let harness = try await ActivationHarness.start()
            try harness.add("SN1", "DAPL00000000001234")
            try harness.add("SN2", "SBXDECLINED0001")
            let result = try harness.cli.run(["activate", deeplink] + extra)
            try await harness.stop()
            answers.append((result.status, Self.normalized(result.stdout), Self.normalized(result.stderr)))
        }
        #expect(answers[0] == answers[1], "\(answers)")
    }
}

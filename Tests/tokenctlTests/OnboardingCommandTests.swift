import Foundation
import Sandbox
import TestSupport
import Testing

/// `tokenctl onboarding …` and the gate on `tokenctl activate`, through the real binary
/// against the sandbox's onboarding and PowerAuth servers.
@Suite struct OnboardingCommandTests {
    static let credentials = #"{"email":"alice@example.com","birthDate":"1990-01-31"}"#
    static let gate = ["TOKENCTL_ONBOARDING_REQUIRE_FINISHED_USER_ACTIVATION": "true"]

    func activateToken(_ harness: DeviceHarness, environment: [String: String] = gate) throws -> CLIResult {
        try harness.cli.run(["activate", "mybank://activate?serialNumber=SN1", "--json"], environment: environment)
    }

    @Test(arguments: Backend.allCases)
    func theUserActivationOpensTheGateOnlyWhenVerificationHasEnded(_ backend: Backend) async throws {
        let harness = try await DeviceHarness.start(backend: backend)
        try await withTeardown({ try? await harness.shutdown() }) {
            #expect(
                try harness.cli.run("wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL00001111").status
                    == 0)

            // Given no user activation, the gate sends nothing and says what to do.
            let closed = try activateToken(harness)
            #expect(closed.status == 77)
            #expect(closed.errorCode == "user.activationRequired")
            #expect(closed.stderr.contains("tokenctl onboarding start"))

            // When the user starts a process and activates with the OTP …
            let started = try harness.onboarding("start", "--credentials", Self.credentials, "--json")
            #expect(started.status == 0, "\(started.stderr)")
            let processID = try #require(started.object["processId"] as? String)
            #expect(started.object["status"] as? String == "activationInProgress")
            #expect(try harness.onboarding("status", "--json").object["status"] as? String == "activationInProgress")
            #expect(try harness.onboarding("start", "--credentials", Self.credentials).status == 75)
            #expect(try harness.onboarding("resend-otp", "--json").errorCode == "onboarding.resendTooEarly")

            let runningGate = try activateToken(harness)
            #expect(runningGate.status == 77)
            #expect(runningGate.stderr.contains("tokenctl onboarding activate --otp"))

            let wrong = try harness.onboarding("activate", "--otp", "00000000", "--pin-file", harness.pinFile, "--json")
            #expect(wrong.status == 2)
            #expect(wrong.errorCode == "onboarding.otpInvalid")
            #expect(wrong.stderr.contains("4 attempts left"))

            let otp = try #require(harness.sandbox.onboarding.otp(processID))
            #expect(try harness.onboarding("otp", "--json").object["otpCode"] as? String == otp)
            let activated = try harness.onboarding(
                "activate", "--otp", otp, "--pin-file", harness.pinFile, "--name", "test host", "--json")
            #expect(activated.status == 0, "\(activated.stderr)")
            #expect(activated.object["flags"] as? [String] == ["VERIFICATION_PENDING"])
            #expect(!activated.stdout.contains(otp) && !activated.stderr.contains(otp))
            let activationID = try #require(activated.object["activationId"] as? String)

            // … then the process is over here, and verification still closes the gate.
            let after = try harness.onboarding("status", "--json")
            #expect(after.status == 66)
            #expect(after.errorCode == "onboarding.notRunning")
            let pending = try activateToken(harness)
            #expect(pending.status == 77)
            #expect(pending.stderr.contains("VERIFICATION_PENDING"))
            // With an activation stored the server must be asked, so its settings are checked.
            var unusable = Self.gate
            unusable["TOKENCTL_ONBOARDING_TLS_CLIENT_KEY_FILE"] = harness.pinFile
            let misconfigured = try activateToken(harness, environment: unusable)
            #expect(misconfigured.status == 78)
            #expect(misconfigured.errorCode == "config.secretMissing")
            #expect(
                misconfigured.stderr.contains(
                    "onboarding.tls.client-key-file is set without onboarding.tls.client-cert-file"))
            #expect(harness.sandbox.activationRequestCount == 0)

            // Identity verification ends; the gate asks the server live and opens.
            try harness.verifyIdentity(processID)
            let open = try activateToken(harness)
            #expect(open.status == 0, "\(open.stderr)")
            #expect(open.outcome == "APPROVED")
            #expect(harness.sandbox.activationRequestCount == 1)

            // A flag set again on the server closes it again; nothing local changed.
            harness.server.setActivationFlags(activationID, ["VERIFICATION_IN_PROGRESS"])
            #expect(
                try harness.cli.run(["wallet", "add", "--serial", "SN2", "--device-account-id", "DAPL00002222"]).status
                    == 0
            )
            let reclosed = try harness.cli.run(
                ["activate", "mybank://activate?serialNumber=SN2", "--json"], environment: Self.gate)
            #expect(reclosed.status == 77)
            #expect(harness.sandbox.activationRequestCount == 1)

            // Every refusal is audited with its reason.
            let audit = try #require(try harness.cli.run("audit", "list", "--json").json() as? [[String: Any]])
            #expect(
                audit.compactMap { $0["errorCode"] as? String }.filter { $0 == "user.activationRequired" }.count == 4)

            // On SQLite, db copy takes the onboarding state to PostgreSQL, where it is the same
            // activation; on PostgreSQL it is there, and db copy takes it to a SQLite file.
            guard let database = harness.postgres else {
                let target = try TestPostgres.makeDatabase()
                let copied = try harness.cli.run(
                    ["db", "copy", "--to", target.url, "--json"],
                    environment: ["TOKENCTL_DATABASE_PASSWORD": TestPostgres.password])
                #expect(
                    copied.status == 0 && (copied.object["stateRows"] as? Int ?? 0) >= 1,
                    "\(copied.stdout)\(copied.stderr)"
                )
                #expect(try target.psql("SELECT activation_id FROM powerauth_activation").output == activationID)
                let onCopy = try harness.cli.run(["device", "show", "--json"], environment: target.environment)
                #expect(onCopy.object["activationId"] as? String == activationID, "\(onCopy.stdout)\(onCopy.stderr)")
                return
            }
            #expect(try database.psql("SELECT activation_id FROM powerauth_activation").output == activationID)
            let file = harness.cli.directory.file("copy.sqlite")
            let copied = try harness.cli.run(["db", "copy", "--to", file, "--json"])
            #expect(
                copied.status == 0 && (copied.object["stateRows"] as? Int ?? 0) >= 1, "\(copied.stdout)\(copied.stderr)"
            )
            let onCopy = try harness.cli.run(
                ["--database", file, "device", "show", "--json"], environment: ["TOKENCTL_DATABASE_URL": ""])
            #expect(onCopy.object["activationId"] as? String == activationID, "\(onCopy.stdout)\(onCopy.stderr)")
        }
    }

    /// `/api/identity/status` answers a MAC-token request with the process and, before
    /// verification starts, (none, NOT_INITIALIZED); a signature instead of the token is 401.
    @Test func theIdentityStatusNeedsTheDevicesToken() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let processID = try #require(
                try harness.onboarding("start", "--credentials", Self.credentials, "--json").object["processId"]
                    as? String)
            let otp = try #require(harness.sandbox.onboarding.otp(processID))
            #expect(try harness.onboarding("activate", "--otp", otp, "--pin-file", harness.pinFile).status == 0)

            let signed = try harness.device("request", "/api/identity/status", "--json")
            #expect(signed.status == 77)
            #expect(signed.stderr.contains("POWERAUTH_AUTH_FAIL"))
            #expect(try harness.device("token").status == 0)
            let status = try harness.device("request", "/api/identity/status", "--auth", "token")
            #expect(status.status == 0, "\(status.stderr)")
            let answer = try #require(try status.jsonObject()["responseObject"] as? [String: Any])
            #expect(answer["processId"] as? String == processID)
            #expect(answer["identityVerificationStatus"] as? String == "NOT_INITIALIZED")
            #expect(answer["identityVerificationPhase"] == nil, "null fields are left out")
            let config = answer["config"] as? [String: Any]
            #expect(config?["otpResendPeriod"] as? String == "PT30S")
            #expect(config?["otpResendPeriodSeconds"] as? Int == 30)
        }
    }

    @Test func theFifthWrongOTPFailsTheProcess() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            #expect(try harness.onboarding("start", "--credentials", Self.credentials).status == 0)
            for _ in 0..<4 {
                #expect(
                    try harness.onboarding("activate", "--otp", "00000000", "--pin-file", harness.pinFile).status == 2)
            }
            let fifth = try harness.onboarding("activate", "--otp", "00000000", "--pin-file", harness.pinFile, "--json")
            #expect(fifth.status == 3)
            #expect(fifth.errorCode == "onboarding.processFailed")
            #expect(try harness.onboarding("status").status == 66)
            #expect(harness.server.activationCount == 0)
        }
    }

    @Test func anExpiredProcessIsStatusFailedWithExit3() async throws {
        let clock = ManualClock()
        let harness = try await DeviceHarness.start(onboarding: OnboardingOptions(clock: clock.reader))
        try await withTeardown({ try? await harness.shutdown() }) {
            #expect(try harness.onboarding("start", "--credentials", Self.credentials).status == 0)
            clock.advance(seconds: 301)
            let status = try harness.onboarding("status", "--json")
            #expect(status.status == 3)
            #expect(status.object["status"] as? String == "failed")
            #expect(try harness.onboarding("status").stdout.contains("tokenctl onboarding cancel"))
        }
    }

    @Test func anUnreachableOrMalformedServer() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let started = try harness.onboarding("start", "--credentials", Self.credentials, "--json")
            let processID = try #require(started.object["processId"] as? String)
            let down = ["TOKENCTL_ONBOARDING_BASE_URL": "http://127.0.0.1:\(try unusedPort())"]

            let status = try harness.onboarding("status", "--json", environment: down)
            #expect(status.status == 69)
            #expect(status.errorCode == "onboarding.unreachable")

            harness.sandbox.onboarding.injectAnswer(
                path: "/api/onboarding/status",
                body: #"{"status":"OK","responseObject":{"processId":"x","onboardingStatus":"PAUSED"}}"#)
            let malformed = try harness.onboarding("status", "--json")
            #expect(malformed.status == 76)
            #expect(malformed.errorCode == "onboarding.protocol")

            harness.sandbox.onboarding.injectAnswer(
                path: "/api/onboarding/status", status: 503, body: "unavailable", encrypted: false)
            #expect(try harness.onboarding("status").status == 69)

            let kept = try harness.onboarding("cancel", "--no-force", "--json", environment: down)
            #expect(kept.status == 69)
            #expect(try harness.onboarding("status").status == 0)

            let forced = try harness.onboarding("cancel", "--json", environment: down)
            #expect(forced.status == 0)
            #expect(forced.object["serverConfirmed"] as? Bool == false)
            #expect(try harness.onboarding("status").status == 66)
            #expect(harness.sandbox.onboarding.processStatus(processID) == "ACTIVATION_IN_PROGRESS")
        }
    }

    @Test func theGateReportsAnUnreachableOnboardingServerAs69() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            #expect(
                try harness.cli.run("wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL00001111").status
                    == 0)
            try harness.verifyIdentity(try harness.onboard())

            let unreachable = try activateToken(
                harness,
                environment: Self.gate.merging(["TOKENCTL_ONBOARDING_BASE_URL": "http://127.0.0.1:\(try unusedPort())"])
                {
                    $1
                })
            #expect(unreachable.status == 69)
            #expect(unreachable.errorCode == "onboarding.unreachable")
            #expect(unreachable.stderr.contains("the connection was refused"), "\(unreachable.stderr)")
            #expect(
                !unreachable.stderr.contains("Failed to connect")
                    && !unreachable.stderr.contains("transport.connectionRefused"), "\(unreachable.stderr)")
            #expect(harness.sandbox.activationRequestCount == 0)

            // At debug level the library's own text is logged, for whoever looks into it.
            let debugged = try activateToken(
                harness,
                environment: Self.gate.merging([
                    "TOKENCTL_ONBOARDING_BASE_URL": "http://127.0.0.1:\(try unusedPort())",
                    "TOKENCTL_LOG_LEVEL": "debug",
                ]) { $1 })
            #expect(debugged.status == 69)
            #expect(
                debugged.stderr.contains("libcurl failed") && debugged.stderr.contains("Failed to connect"),
                "\(debugged.stderr)")
            #expect(try activateToken(harness).status == 0)
        }
    }

    @Test(arguments: [
        ["--credentials", "[1,2]"], ["--credentials", "{}"], ["--credentials", "not json"],
        ["--credentials-file", "/nonexistent/credentials.json"],
    ])
    func unusableCredentialsAreAUsageError(_ arguments: [String]) async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let result = try harness.cli.run(["onboarding", "start", "--json"] + arguments)
            #expect(result.status == 64)
            #expect(result.errorCode == "usage.invalid")
            #expect(harness.sandbox.requests.isEmpty)
        }
    }

    @Test func credentialsComeFromAFileOrStandardInput() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let result = try harness.cli.run(
                ["onboarding", "start", "--credentials-file", "-", "--json"], stdin: Self.credentials)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(harness.sandbox.onboarding.processCount == 1)
        }
    }
}

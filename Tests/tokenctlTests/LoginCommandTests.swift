import Foundation
import GRDB
import Sandbox
import TestSupport
import Testing

/// `tokenctl login …` through the real binary against the sandbox's MIRACL platform and
/// relying party, and the PIN-login gate of `tokenctl activate`.
@Suite struct LoginCommandTests {
    static let pin = "80417362"
    let harness: ActivationHarness
    var cli: CLI
    let pinFile: String

    init() async throws {
        try await self.init(backend: .sqlite)
    }

    init(backend: Backend) async throws {
        harness = try await ActivationHarness.start(backend: backend)
        cli = harness.cli
        cli.environment["TOKENCTL_LOGIN_BACKEND_URL"] = harness.sandbox.baseURL
        cli.environment["TOKENCTL_LOGIN_RELYING_PARTY_URL"] = harness.sandbox.baseURL + "/rp"
        pinFile = cli.write("pin", Self.pin + "\n")
        chmod(pinFile, 0o600)
    }

    func login(_ arguments: String...) throws -> CLIResult {
        try cli.run(["login"] + arguments)
    }

    /// register → (open the e-mailed link) → confirm → set-pin, each checked.
    func register(_ identity: String = "alice@example.com") throws {
        let registered = try login("register", "--identity", identity, "--json")
        #expect(registered.status == 0, "\(registered.stderr)")
        #expect(try registered.jsonObject()["state"] as? String == "STARTED_REGISTRATION")
        #expect(harness.sandbox.miracl.confirmEmail(userID: identity))
        #expect(try login("confirm").status == 0)
        let set = try login("set-pin", "--pin-file", pinFile, "--json")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try set.jsonObject()["state"] as? String == "REGISTERED")
    }

    @Test func theFlowNamesTheNextStepAndExitsAsDocumented() async throws {
        try await withTeardown({ try await harness.stop() }) {
            let none = try login("status")
            #expect(none.status == 0)
            #expect(none.stdout.contains("tokenctl login register --identity EMAIL"))
            // No user is the contract's INVALID state, not a null.
            #expect(try login("status", "--json").jsonObject()["state"] as? String == "INVALID")
            #expect(try login("run", "--pin-file", pinFile).status == 66)

            let registered = try login("register", "--identity", "alice@example.com")
            #expect(registered.status == 0, "\(registered.stderr)")
            #expect(registered.stdout.contains("STARTED_REGISTRATION"))
            #expect(
                registered.stdout.contains(
                    "open the link in the confirmation e-mail, then run `tokenctl login confirm`"))

            let early = try login("confirm", "--json")
            #expect(early.status == 75)
            #expect(early.stdout.contains("login.notConfirmed"))
            let wrongStep = try login("set-pin", "--pin-file", pinFile)
            #expect(wrongStep.status == 65)
            #expect(wrongStep.stderr.contains("login.wrongState"))
            #expect(try login("register", "--identity", "bob@example.com").status == 65)

            #expect(try login("resend-email").status == 0)
            #expect(harness.sandbox.miracl.confirmEmail(userID: "alice@example.com"))
            let confirmed = try login("confirm")
            #expect(confirmed.status == 0, "\(confirmed.stderr)")
            #expect(confirmed.stdout.contains("tokenctl login set-pin"))
            #expect(try login("set-pin", "--pin-file", pinFile).status == 0)

            let loggedIn = try login("run", "--pin-file", pinFile, "--json")
            #expect(loggedIn.status == 0, "\(loggedIn.stderr)")
            #expect(try loggedIn.jsonObject()["loggedIn"] as? Bool == true)

            let wrong = cli.write("wrong", "1111\n")
            chmod(wrong, 0o600)
            let first = try login("run", "--pin-file", wrong, "--json")
            #expect(first.status == 2)
            let error = try #require(try first.jsonObject()["error"] as? [String: Any])
            #expect(error["code"] as? String == "login.wrongPIN")
            #expect(error["attemptsLeft"] as? Int == 2)
            #expect(try login("run", "--pin-file", wrong).status == 2)
            let blocked = try login("run", "--pin-file", wrong)
            #expect(blocked.status == 3)
            #expect(blocked.stderr.contains("login.blocked"))
            #expect(blocked.stderr.contains("tokenctl login delete"))
            // The message says it; no log line repeats it at the default level.
            #expect(blocked.stderr.split(separator: "\n").count == 1, "\(blocked.stderr)")
            #expect(try login("status", "--json").jsonObject()["state"] as? String == "BLOCKED")

            #expect(try login("delete").status == 0)
            #expect(try login("delete").status == 66)
        }
    }

    /// The user keeps the server it registered with; when login.backend-url names another,
    /// status and every step say so, and how to move.
    @Test func aChangedBackendURLAfterRegistrationIsNamed() async throws {
        try await withTeardown({ try await harness.stop() }) {
            try register()
            let same = try login("status")
            #expect(!same.stdout.contains("server "), "\(same.stdout)")
            #expect(try login("status", "--json").jsonObject()["registeredBackendURL"] is NSNull)

            // The same sandbox under another name: the configuration moved, the user did not.
            let moved = harness.sandbox.baseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")
            let elsewhere = ["TOKENCTL_LOGIN_BACKEND_URL": moved]
            let status = try cli.run(["login", "status"], environment: elsewhere)
            #expect(
                status.stdout.contains(
                    "server        \(harness.sandbox.baseURL) (where it registered; login.backend-url names another: run `tokenctl login delete`, then `tokenctl login register --identity EMAIL` to move it)"
                ), "\(status.stdout)")
            #expect(
                try cli.run(["login", "status", "--json"], environment: elsewhere).jsonObject()["registeredBackendURL"]
                    as? String == harness.sandbox.baseURL)
            let run = try cli.run(["login", "run", "--pin-file", pinFile], environment: elsewhere)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.stderr.contains(
                    "this login user was registered with \(harness.sandbox.baseURL), and its requests go there; login.backend-url is now \(moved)"
                ), "\(run.stderr)")
        }
    }

    @Test func aPINComesOnlyFromAPrivateFileOrATerminal() async throws {
        try await withTeardown({ try await harness.stop() }) {
            try register()
            let loose = cli.write("loose-pin", Self.pin + "\n")
            chmod(loose, 0o644)
            let refused = try login("run", "--pin-file", loose)
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("chmod 600"))
            #expect(refused.stderr.contains("login.invalidPIN"))
            // No terminal, no file: refused, nothing sent.
            let before = harness.sandbox.requests.count
            let noPIN = try login("run")
            #expect(noPIN.status == 64)
            #expect(noPIN.stderr.contains("--pin-file"))
            #expect(harness.sandbox.requests.count == before)
            #expect(try login("run", "--pin", Self.pin).status == 64)
        }
    }

    @Test(arguments: Backend.allCases)
    func activationWaitsForARecentPINLoginAndTheRefusalIsAudited(_ backend: Backend) async throws {
        let suite = backend == .sqlite ? self : try await LoginCommandTests(backend: backend)
        try await withTeardown({
            try await harness.stop()
            if backend != .sqlite { try await suite.harness.stop() }
        }) {
            try suite.pinLoginGate()
        }
    }

    private func pinLoginGate() throws {
        try harness.add("SNPINGATE1", "DAPLPINGATE1")
        try harness.add("SNPINGATE2", "DAPLPINGATE2")
        let gate = ["TOKENCTL_ONBOARDING_REQUIRE_PIN_LOGIN_WITHIN_SECONDS": "300"]

        let noUser = try harness.activate("SNPINGATE1", environment: gate)
        #expect(noUser.status == 77)
        #expect(noUser.stdout.contains("login.required"))
        #expect(noUser.stdout.contains("tokenctl login register"))
        try register()
        let noLogin = try harness.activate("SNPINGATE1", environment: gate)
        #expect(noLogin.status == 77)
        #expect(noLogin.stdout.contains("tokenctl login run"))
        #expect(harness.sandbox.activationRequestCount == 0)
        let audited = try harness.auditEntries()
        #expect(audited.filter { $0["errorCode"] as? String == "login.required" }.count == 2, "\(audited)")

        #expect(try login("run", "--pin-file", pinFile).status == 0)
        let approved = try harness.activate("SNPINGATE1", environment: gate)
        #expect(approved.status == 0, "\(approved.stdout)\(approved.stderr)")
        #expect(approved.outcome == "APPROVED")
        let batch = try cli.run(
            ["activate", "--batch", "-", "--json"], stdin: "mybank://activate?serialNumber=SNPINGATE2\n",
            environment: gate)
        #expect(batch.status == 0, "\(batch.stdout)\(batch.stderr)")
        #expect(harness.sandbox.activationRequestCount == 2)
        // Without the setting there is no gate.
        try harness.add("SNPINGATE3", "DAPLPINGATE3")
        #expect(try harness.activate("SNPINGATE3").status == 0)
    }

    /// The service asks the gate for every activation, not once at start: a login made
    /// while it runs lets the next activation through.
    @Test func theServiceAsksThePINLoginGateForEveryActivation() async throws {
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SNPINGATE1", "DAPLPINGATE1")
            var activation = harness
            activation.cli = cli
            let service = try ServiceHarness.launch(
                activation, environment: ["TOKENCTL_ONBOARDING_REQUIRE_PIN_LOGIN_WITHIN_SECONDS": "300"])
            defer { _ = try? service.stop() }
            let refused = try service.activate("SNPINGATE1")
            #expect(refused.status == 403)
            #expect(try refused.object()["code"] as? String == "login.required")
            #expect(try service.request("GET", "/readyz").status == 200)
            try register()
            #expect(try login("run", "--pin-file", pinFile).status == 0)
            let approved = try service.activate("SNPINGATE1")
            #expect(approved.status == 200, "\(approved.body)")
            #expect(try approved.object()["outcome"] as? String == "APPROVED")
            #expect(harness.sandbox.activationRequestCount == 1)
        }
    }

    @Test func thePINAndTheTokenAppearNowhereButTheTokenColumn() async throws {
        try await withTeardown({ try await harness.stop() }) {
            var cli = cli
            cli.environment["TOKENCTL_LOG_LEVEL"] = "trace"
            var outputs: [String] = []
            func run(_ arguments: String...) throws {
                let result = try cli.run(["login"] + arguments)
                outputs.append(result.stdout + result.stderr)
            }
            try run("register", "--identity", "alice@example.com")
            #expect(harness.sandbox.miracl.confirmEmail(userID: "alice@example.com"))
            try run("confirm", "--json")
            try run("set-pin", "--pin-file", pinFile, "--json")
            try run("run", "--pin-file", pinFile)
            try run("run", "--pin-file", pinFile, "--json")
            try run("status")
            try run("status", "--json")
            try run("--help")

            let queue = try DatabaseQueue(path: cli.databasePath)
            let (token, mpinID) = try await queue.read { db in
                let row = try #require(try Row.fetchOne(db, sql: "SELECT secret, mpin_id FROM login_user"))
                return (row["secret"] as String, row["mpin_id"] as String)
            }
            #expect(token.count == 130)
            for output in outputs {
                #expect(!output.contains(Self.pin))
                #expect(!output.contains(token))
                #expect(!output.contains(token.dropFirst(2).prefix(32)))
                #expect(!output.contains(mpinID))
            }
            // Every other column and table, as text: neither the PIN nor the token.
            let dump = try await queue.read { db in
                var text = ""
                for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") {
                    for row in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"") {
                        for (column, value) in row where !(table == "login_user" && column == "secret") {
                            text += "\(value)\n"
                        }
                    }
                }
                return text
            }
            #expect(!dump.contains(Self.pin))
            #expect(!dump.contains(token))
            // The test looks for text that is there: the token is in its column (split, perhaps,
            // across an overflow page boundary; one half is whole).
            let files = [cli.databasePath, cli.databasePath + "-wal"].compactMap {
                try? String(contentsOfFile: $0, encoding: .isoLatin1)
            }
            #expect(files.contains { $0.contains(token.prefix(65)) || $0.contains(token.suffix(65)) })
        }
    }
}

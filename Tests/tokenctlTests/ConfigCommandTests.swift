import Foundation
import TestSupport
import Testing
import TransparencyLog
import WalletModel

/// `config show` gives each value with its origin and secrets only as set or unset;
/// `config check` exits 0 or 78 listing every problem; an unknown `TOKENCTL_*` variable is
/// refused with a did-you-mean like an unknown key in the file.
@Suite struct ConfigCommandTests {
    let cli = CLI()

    func settings(_ result: CLIResult) throws -> [String: [String: Any]] {
        try #require(try result.jsonObject()["settings"] as? [String: [String: Any]])
    }

    /// `audit.witnesses`: a list of objects in the file (a trailing slash of a URL dropped),
    /// JSON text in the environment; an object with another key or a log's key instead of a
    /// cosigner's is refused (78), naming where it came from.
    @Test func witnessesAreReadFromTheFileAndTheEnvironment() throws {
        let key = try NoteSigner.generate(name: "witness.example/w1").verifier.verifierKey
        let witness = try #require(try? Cosignature.Verifier(verifierKey: Self.cosignerKey)).verifierKey
        let file = cli.write(
            "w.json", #"{"audit": {"witnesses": [{"url": "https://w.example/", "verifier-key": "\#(witness)"}]}}"#)
        let shown = try cli.run(["config", "show", "--json", "--config", file])
        #expect(shown.status == 0, "\(shown.stderr)")
        let entry = try settings(shown)["audit.witnesses"]
        #expect((entry?["value"] as? [[String: String]]) == [["url": "https://w.example", "verifier-key": witness]])
        #expect(entry?["origin"] as? String == "file")
        let fromEnvironment = try cli.run(
            ["config", "show", "--json", "--config", file],
            environment: [
                "TOKENCTL_AUDIT_WITNESSES": #"[{"url": "http://127.0.0.1:9", "verifier-key": "\#(witness)"}]"#
            ])
        #expect(try settings(fromEnvironment)["audit.witnesses"]?["origin"] as? String == "environment")
        for bad in [
            #"[{"url": "https://w.example", "verifier-key": "\#(witness)", "name": "w"}]"#,
            #"[{"url": "https://w.example", "verifier-key": "\#(key)"}]"#, #"{"url": "x"}"#,
        ] {
            let refused = try cli.run([
                "config", "check", "--config", cli.write("bad.json", #"{"audit": {"witnesses": \#(bad)}}"#),
            ])
            #expect(
                refused.status == 78 && refused.stderr.contains("audit.witnesses")
                    && refused.stderr.contains("(config.invalidValue)"), "\(bad): \(refused.stderr)")
        }
    }

    /// `tmp.transport` still loads with either former value, is shown as set, and `config
    /// check` says it has no effect; unset, it is null and not mentioned.
    @Test func theFormerTransportKeyLoadsAndIsNamedAsWithoutEffect() throws {
        let file = cli.write("t.json", #"{"tmp": {"transport": "multi", "base-url": "http://127.0.0.1:9"}}"#)
        let shown = try cli.run(["config", "show", "--json", "--config", file])
        #expect(try settings(shown)["tmp.transport"]?["value"] as? String == "multi", "\(shown.stdout)")
        let checked = try cli.run(["config", "check", "--config", file])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("tmp.transport has no effect"), "\(checked.stdout)")
        let unset = try cli.run(["config", "show", "--json"])
        #expect(try settings(unset)["tmp.transport"]?["value"] is NSNull, "\(unset.stdout)")
        #expect(!(try cli.run(["config", "check"]).stdout.contains("tmp.transport")))
    }

    /// A cosigner verifier key (algorithm 0x04) made for these tests.
    static let cosignerKey: String = {
        (try? Cosignature.Signer.generate(name: "witness.example/w1"))?.verifier.verifierKey ?? ""
    }()

    @Test func showNamesTheOriginOfEveryValue() throws {
        let file = cli.write("config.json", #"{"tmp": {"timeout-ms": 9000, "base-url": "https://tmp.example.com"}}"#)
        let environment = [
            "TOKENCTL_TMP_CONNECT_TIMEOUT_MS": "1234", "TOKENCTL_TMP_BEARER_TOKEN": "bearer-secret-value",
        ]
        let result = try cli.run(
            ["config", "show", "--json", "--config", file, "--database", "flag.sqlite"], environment: environment)
        #expect(result.status == 0)
        let values = try settings(result)
        #expect(values["tmp.timeout-ms"]?["value"] as? Int == 9000)
        #expect(values["tmp.timeout-ms"]?["origin"] as? String == "file")
        #expect(values["tmp.timeout-ms"]?["from"] as? String == file)
        #expect(values["tmp.connect-timeout-ms"]?["value"] as? Int == 1234)
        #expect(values["tmp.connect-timeout-ms"]?["origin"] as? String == "environment")
        #expect(values["tmp.connect-timeout-ms"]?["from"] as? String == "TOKENCTL_TMP_CONNECT_TIMEOUT_MS")
        #expect(values["database.path"]?["value"] as? String == "flag.sqlite")
        #expect(values["database.path"]?["origin"] as? String == "flag")
        #expect(values["onboarding.timeout-ms"]?["value"] as? Int == 20000)
        #expect(values["onboarding.timeout-ms"]?["origin"] as? String == "default")
        #expect(values["tmp.auth.bearer-token-file"]?["value"] is NSNull)
        #expect((values["audit.witnesses"]?["value"] as? [Any])?.isEmpty == true)
        #expect(values.count == 63)
        #expect(values["database.reconnect-window-ms"]?["value"] as? Int == 30000)

        let secrets = try #require(try result.jsonObject()["secrets"] as? [String: [String: Any]])
        #expect(secrets["TMP bearer token"]?["set"] as? Bool == true)
        #expect(secrets["TMP bearer token"]?["from"] as? String == "TOKENCTL_TMP_BEARER_TOKEN")
        #expect(secrets["TMP API key"]?["set"] as? Bool == false)
        #expect(!result.stdout.contains("bearer-secret-value"))
    }

    @Test func showInTextIsATableWithSecretsAsSetOrUnset() throws {
        let token = cli.write("tmp.token", "file-secret-value\n")
        chmod(token, 0o600)
        let file = cli.write("config.json", #"{"tmp": {"auth": {"bearer-token-file": "tmp.token"}}}"#)
        let result = try cli.run(
            ["config", "show", "--config", file], environment: ["TOKENCTL_TMP_TIMEOUT_MS": "5000"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "configuration file: \(file)")
        #expect(lines.contains("tmp.timeout-ms                                 environment  5000"))
        #expect(lines.contains("tmp.auth.bearer-token-file                     file         \(token)"))
        #expect(lines.contains("tmp.retry.backoff-ms                           default      100,300"))
        #expect(lines.contains("  TMP bearer token               set, from tmp.auth.bearer-token-file"))
        #expect(lines.contains("  TMP API key                    unset"))
        #expect(!result.stdout.contains("file-secret-value"))
    }

    @Test func anUnknownVariableGetsTheSameDidYouMeanAsAnUnknownKey() throws {
        let variable = try cli.run(["wallet", "list"], environment: ["TOKENCTL_TMP_TIMEOUT": "5000"])
        #expect(variable.status == 78)
        #expect(
            variable.stderr.contains(
                "unknown variable TOKENCTL_TMP_TIMEOUT (did you mean TOKENCTL_TMP_TIMEOUT_MS?) (config.unknownKey)"))

        let file = cli.write("config.json", #"{"tmp": {"timeout": 5000}}"#)
        let key = try cli.run("wallet", "list", "--config", file)
        #expect(key.status == 78)
        #expect(key.stderr.contains("unknown key tmp.timeout (did you mean tmp.timeout-ms?) (config.unknownKey)"))

        // The variables that are not keys are known too.
        let known = [
            "TOKENCTL_LOG_LEVEL": "error", "TOKENCTL_TMP_API_KEY": "k",
            "TOKENCTL_ONBOARDING_POWERAUTH_APPLICATION_SECRET": "s",
        ]
        #expect(try cli.run(["wallet", "list"], environment: known).status == 0)
        #expect(
            try cli.run(["config", "check"], environment: ["TOKENCTL_DATABSE_PATH": "x"]).stderr.contains(
                "did you mean TOKENCTL_DATABASE_PATH?"))
    }

    @Test func checkPassesOnTheDefaultsAndOnAPrivateSecret() throws {
        let defaults = try cli.run("config", "check")
        #expect(defaults.status == 0)
        #expect(defaults.stdout.hasSuffix("the configuration is usable\n"))

        let token = cli.write("tmp.token", "secret\n")
        chmod(token, 0o600)
        let file = cli.write("config.json", #"{"tmp": {"auth": {"bearer-token-file": "tmp.token"}}}"#)
        let result = try cli.run("config", "check", "--config", file, "--json")
        #expect(result.status == 0)
        let object = try result.jsonObject()
        #expect(object["ok"] as? Bool == true)
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(
            checks.map { $0["part"] as? String } == [
                "tmp", "onboarding", "powerauth", "login", "service", "audit", "database",
            ])
        #expect((checks[6]["detail"] as? String)?.hasPrefix("SQLite ") == true)
        #expect(checks[0]["detail"] as? String == "http://127.0.0.1:8787, bearer token")
    }

    /// An issuer who only activates tokens: with no gate on, the onboarding, PowerAuth and
    /// login parts are unused by activations, their problems warnings (as the shipped
    /// configuration's placeholders are), and the configuration is usable.
    @Test func partsNoGateNeedsAreWarningsNotFailures() throws {
        let file = cli.write(
            "config.json",
            """
            {"onboarding": {"base-url": "https://onboarding.example.com", "require-finished-user-activation": false,
                            "require-pin-login-within-seconds": null},
             "login": {"backend-url": "https://api.mpin.example.com"}}
            """)
        let result = try cli.run("config", "check", "--config", file)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("skip  onboarding     unused: no gate needs it"))
        #expect(result.stdout.contains("skip  login          unused: no gate needs it"))
        #expect(result.stdout.hasSuffix("the configuration is usable\n"))
        #expect(result.stderr.contains("warning: onboarding (unused): onboarding.base-url is still the placeholder"))
        let json = try cli.run("config", "check", "--config", file, "--json")
        #expect(try json.jsonObject()["ok"] as? Bool == true)

        // A gate that needs the part makes its problems failures again.
        let gated = cli.write(
            "gated.json",
            """
            {"onboarding": {"base-url": "https://onboarding.example.com", "require-finished-user-activation": true}}
            """)
        let failing = try cli.run("config", "check", "--config", gated)
        #expect(failing.status == 78)
        #expect(failing.stdout.contains("FAIL  onboarding     config.invalidValue"))
    }

    @Test func checkListsEveryProblemAndExits78() throws {
        let token = cli.write("tmp.token", "secret\n")
        chmod(token, 0o644)
        let file = cli.write(
            "config.json",
            """
            {"tmp": {"auth": {"bearer-token-file": "tmp.token"}},
             "onboarding": {"require-pin-login-within-seconds": 300},
             "login": {"backend-url": "http://login.mybank.net"}}
            """)
        let result = try cli.run("config", "check", "--config", file)
        #expect(result.status == 78)
        #expect(result.stdout.contains("FAIL  tmp            config.secretPermissions\n"))
        #expect(result.stdout.contains("FAIL  login          config.insecureURL\n"))
        #expect(result.stdout.contains("ok    onboarding     http://127.0.0.1:8787\n"))
        #expect(result.stdout.hasSuffix("2 problems (below on standard error)\n"))
        #expect(result.stderr.contains("chmod 600 \(token)"))
        #expect(result.stderr.contains("login.backend-url http://login.mybank.net uses plain http"))

        let json = try cli.run("config", "check", "--config", file, "--json")
        #expect(json.status == 78)
        let checks = try #require(try json.jsonObject()["checks"] as? [[String: Any]])
        #expect(
            checks.compactMap { ($0["error"] as? [String: Any])?["code"] as? String } == [
                "config.secretPermissions", "config.insecureURL",
            ])
    }

    /// Each check of a part runs on its own: a group-readable bearer file is named beside the
    /// insecure address, and the database is checked without creating anything.
    @Test func everyProblemOfAPartIsListedAndTheDatabaseIsChecked() throws {
        let token = cli.write("tmp.token", "secret\n")
        chmod(token, 0o644)
        let missing = cli.directory.file("no-such-dir")
        let file = cli.write(
            "config.json",
            """
            {"tmp": {"base-url": "http://tmp.mybank.net", "auth": {"bearer-token-file": "tmp.token"}}}
            """)
        let result = try cli.run("config", "check", "--config", file, "--database", "\(missing)/tokenctl.sqlite")
        #expect(result.status == 78)
        #expect(
            result.stdout.contains(
                "FAIL  tmp            config.insecureURL\nFAIL  tmp            config.secretPermissions\n"),
            "\(result.stdout)")
        #expect(result.stdout.contains("FAIL  database       storage.directoryMissing\n"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("3 problems (below on standard error)\n"))
        #expect(result.stderr.contains("the database directory \(missing) does not exist"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing))

        let json = try cli.run(
            "config", "check", "--config", file, "--database", "\(missing)/tokenctl.sqlite", "--json"
        ).jsonObject()
        let checks = try #require(json["checks"] as? [[String: Any]])
        #expect(
            (checks[0]["errors"] as? [[String: Any]])?.compactMap { $0["code"] as? String } == [
                "config.insecureURL", "config.secretPermissions",
            ])
        #expect(
            (checks.first { $0["part"] as? String == "database" }?["error"] as? [String: Any])?["code"] as? String
                == "storage.directoryMissing")

        // A read-only database file is named too (74 alone: no configuration problem).
        let database = cli.write("ro.sqlite", "")
        chmod(database, 0o400)
        let readOnly = try cli.run("config", "check", "--database", database)
        if getuid() != 0 {
            #expect(readOnly.status == 74, "\(readOnly.stdout)")
            #expect(readOnly.stdout.contains("FAIL  database       storage.readOnly"))
        }
        let fresh = try cli.run("config", "check", "--database", cli.directory.file("new.sqlite"))
        #expect(fresh.status == 0)
        #expect(
            fresh.stdout.contains(
                "ok    database       SQLite \(cli.directory.file("new.sqlite")) (created at first use)"))
        #expect(!FileManager.default.fileExists(atPath: cli.directory.file("new.sqlite")))
    }

    /// A PostgreSQL password file that is readable by others or missing is one line of
    /// the list, beside the other parts, not a load error that hides them; any other command
    /// stops on it with the same code.
    @Test func aPasswordFileProblemIsListedWithTheOtherParts() throws {
        let password = cli.write("db.password", "secret\n")
        chmod(password, 0o644)
        let url = "postgres://tokenctl@127.0.0.1:1/tokenctl?sslmode=disable"
        for (file, code) in [
            (password, "config.secretPermissions"), (cli.directory.file("absent.password"), "config.secretMissing"),
        ] {
            let environment = ["TOKENCTL_DATABASE_URL": url, "TOKENCTL_DATABASE_PASSWORD_FILE": file]
            let result = try cli.run(["config", "check"], environment: environment)
            #expect(result.status == 78, "\(result.stderr)")
            #expect(
                result.stdout.contains("ok    tmp ") && result.stdout.contains("FAIL  database       \(code)\n"),
                "\(result.stdout)")
            #expect(result.stdout.hasSuffix("1 problem (below on standard error)\n"), "\(result.stdout)")
            #expect(result.stderr.contains(file), "\(result.stderr)")
            let list = try cli.run(["wallet", "list", "--json"], environment: environment)
            #expect(list.status == 78 && list.errorCode == code, "\(list.stdout)")
        }
    }

    /// The lease's host id and length are shown as in effect, on SQLite too; the length
    /// follows the TMP timeouts it is derived from.
    @Test func showNamesTheHostIDAndTheLeaseInEffect() throws {
        func shown(_ environment: [String: String], _ key: String) throws -> Any? {
            let settings = try #require(
                try cli.run(["config", "show", "--json"], environment: environment).jsonObject()["settings"]
                    as? [String: Any])
            return (settings[key] as? [String: Any])?["value"]
        }
        let host = try #require(try shown([:], "database.host-id") as? String)
        #expect(!host.isEmpty)
        let short = try #require(try shown(["TOKENCTL_TMP_TIMEOUT_MS": "1000"], "database.lease-ms") as? Int)
        let long = try #require(try shown(["TOKENCTL_TMP_TIMEOUT_MS": "20000"], "database.lease-ms") as? Int)
        #expect(long > short, "\(short) \(long)")
        let flagged = try cli.run("--host-id", "web-1", "config", "show")
        #expect(
            flagged.stdout.contains("database.host-id                               flag         web-1"),
            "\(flagged.stdout)")
    }

    @Test func theRelyingPartyNeedsHTTPSLikeTheBackend() throws {
        // The PIN-login gate makes the login part one that activations need.
        let file = cli.write(
            "config.json",
            #"{"onboarding": {"require-pin-login-within-seconds": 300}, "login": {"backend-url": "https://login.mybank.net", "relying-party-url": "http://rp.mybank.net"}}"#
        )
        let check = try cli.run("config", "check", "--config", file)
        #expect(check.status == 78)
        #expect(check.stderr.contains("login.relying-party-url http://rp.mybank.net uses plain http"))
        let register = try cli.run("login", "register", "--identity", "alice@example.com", "--config", file)
        #expect(register.status == 78)
        #expect(register.stderr.contains("(config.insecureURL)"))
    }
}

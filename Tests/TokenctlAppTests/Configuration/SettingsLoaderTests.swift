import ErrorCodes
import Foundation
import Testing
import TokenActivation

@testable import TokenctlApp
@testable import TokenctlConfiguration

@Suite struct SettingsLoaderTests {
    let directory = TemporaryDirectory()
    var home: [String: String] { ["HOME": directory.path] }

    func write(_ json: String, to name: String = "config.json") -> String {
        let path = directory.file(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(json.utf8))
        return path
    }

    func load(_ environment: [String: String] = [:], flags: SettingsLoader.Flags = .init()) async throws -> Settings {
        try await SettingsLoader(environment: home.merging(environment) { $1 }).load(flags: flags)
    }

    @Test func theBuiltInDefaultsEqualTheShippedDefaultFile() async throws {
        let builtIn = try await load()
        var fromFile = try await load(flags: .init(configFile: repositoryRoot + "/Config/tokenctl.json"))
        fromFile.configFile = nil
        #expect(fromFile == builtIn)
        #expect(builtIn.database.path == directory.path + "/.local/share/tokenctl/tokenctl.sqlite")
        #expect(builtIn.database.createsDirectory)
        #expect(builtIn.deeplinkFormats.map(\.description) == ["mybank://activate"])
        #expect(builtIn.tmp.baseURL == "http://127.0.0.1:8787")
        #expect(builtIn.database.busyTimeoutMilliseconds == 30_000)
    }

    @Test func theProductionExampleLoadsAndSetsEveryKey() async throws {
        let settings = try await load(flags: .init(configFile: repositoryRoot + "/Config/production.example.json"))
        #expect(settings.database.path == "/var/lib/tokenctl/tokenctl.sqlite")
        #expect(settings.tmp.baseURL == "https://tmp.example.com")
        // Secrets and TLS files are named relative to the file: /etc/tokenctl/… when
        // installed, or the credentials systemd passes under those names.
        #expect(settings.tmp.authentication.bearerTokenFile == repositoryRoot + "/Config/tmp.token")
        #expect(settings.tmp.tls.clientKeyFile == repositoryRoot + "/Config/client.key")
        #expect(settings.service.socket == "/run/tokenctl/tokenctl.sock")
        let keys = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: repositoryRoot + "/Config/production.example.json")))
                as? [String: Any])
        // Every key that does something (tmp.transport, kept for older files, does not).
        #expect(Self.leafKeys(keys) == ConfigKeys.all.subtracting([ConfigKeys.tmpTransport]))
        #expect(settings.onboarding.requiresFinishedUserActivation)
        #expect(settings.database.durability == .full)
    }

    /// The dotted paths of an object's leaves (lists are leaves).
    static func leafKeys(_ object: [String: Any], prefix: String = "") -> Set<String> {
        object.reduce(into: Set<String>()) { keys, member in
            if let inner = member.value as? [String: Any] {
                keys.formUnion(leafKeys(inner, prefix: prefix + member.key + "."))
            } else {
                keys.insert(prefix + member.key)
            }
        }
    }

    @Test func durabilityIsNormalOrFull() async throws {
        #expect(try await load().database.durability == .normal)
        #expect(try await load(["TOKENCTL_DATABASE_SYNCHRONOUS": "full"]).database.durability == .full)
        let error = try await #require(throws: ConfigurationError.self) {
            try await load(["TOKENCTL_DATABASE_SYNCHRONOUS": "fast"])
        }
        #expect(error.message == "environment variable TOKENCTL_DATABASE_SYNCHRONOUS: expected normal or full")
    }

    @Test func theDefaultDatabaseFollowsXDGDataHome() async throws {
        let settings = try await load(["XDG_DATA_HOME": "/srv/data"])
        #expect(settings.database.path == "/srv/data/tokenctl/tokenctl.sqlite")
    }

    /// A service without HOME or XDG_DATA_HOME (a systemd system service) gets the account's
    /// home, or /var/lib/tokenctl for a system account without one; never `/.local/…`.
    @Test(
        arguments: [
            ([String: String](), "/home/bob", "/home/bob/.local/share/tokenctl/tokenctl.sqlite"),
            ([:], "/nonexistent", "/var/lib/tokenctl/tokenctl.sqlite"),
            ([:], "/", "/var/lib/tokenctl/tokenctl.sqlite"),
            ([:], nil, "/var/lib/tokenctl/tokenctl.sqlite"),
            (["HOME": ""], "/nonexistent", "/var/lib/tokenctl/tokenctl.sqlite"),
            (["HOME": "/"], "/nonexistent", "/var/lib/tokenctl/tokenctl.sqlite"),
            (["HOME": "/home/alice"], "/home/bob", "/home/alice/.local/share/tokenctl/tokenctl.sqlite"),
            (
                ["XDG_DATA_HOME": "relative", "HOME": "/home/alice"], nil,
                "/home/alice/.local/share/tokenctl/tokenctl.sqlite"
            ),
        ] as [([String: String], String?, String)])
    func aServiceWithoutHomeGetsASaneDefault(
        environment: [String: String], accountHome: String?, expected: String
    ) throws {
        let home = accountHome == "/home/bob" ? directory.path : accountHome
        let path = Settings.defaultDatabasePath(environment: environment, accountHome: home)
        #expect(path == expected.replacingOccurrences(of: "/home/bob", with: directory.path))
        #expect(!path.hasPrefix("/.local"))
    }

    @Test func precedenceIsFlagThenEnvironmentThenFileThenDefault() async throws {
        let file = write(
            #"{"database": {"path": "from-file.sqlite", "busy-timeout-ms": 5}, "tmp": {"timeout-ms": 7, "connect-timeout-ms": 8}}"#
        )
        let environment = ["TOKENCTL_DATABASE_PATH": "/env/db.sqlite", "TOKENCTL_TMP_TIMEOUT_MS": "9"]

        let fileOnly = try await load(flags: .init(configFile: file))
        #expect(fileOnly.database.path == directory.file("from-file.sqlite"))  // relative to the file
        #expect(!fileOnly.database.createsDirectory)
        #expect(fileOnly.tmp.timeoutMilliseconds == 7)

        let withEnvironment = try await load(environment, flags: .init(configFile: file))
        #expect(withEnvironment.database.path == "/env/db.sqlite")
        #expect(withEnvironment.tmp.timeoutMilliseconds == 9)
        #expect(withEnvironment.tmp.connectTimeoutMilliseconds == 8)
        #expect(withEnvironment.database.busyTimeoutMilliseconds == 5)

        let withFlag = try await load(environment, flags: .init(configFile: file, databasePath: "flag.sqlite"))
        #expect(withFlag.database.path == "flag.sqlite")
    }

    @Test func theFileIsFoundThroughTheVariableThenXDGConfigHome() async throws {
        let viaVariable = write(#"{"onboarding": {"instance-id": "via-variable"}}"#, to: "a.json")
        #expect(try await load(["TOKENCTL_CONFIG": viaVariable]).onboarding.instanceID == "via-variable")

        try FileManager.default.createDirectory(
            atPath: directory.file("xdg/tokenctl"), withIntermediateDirectories: true)
        _ = write(#"{"onboarding": {"instance-id": "via-xdg"}}"#, to: "xdg/tokenctl/config.json")
        #expect(try await load(["XDG_CONFIG_HOME": directory.file("xdg")]).onboarding.instanceID == "via-xdg")

        try FileManager.default.createDirectory(
            atPath: directory.file(".config/tokenctl"), withIntermediateDirectories: true)
        _ = write(#"{"onboarding": {"instance-id": "via-home"}}"#, to: ".config/tokenctl/config.json")
        #expect(try await load().onboarding.instanceID == "via-home")
    }

    @Test func environmentListsAreCommaSeparated() async throws {
        let settings = try await load([
            "TOKENCTL_DEEPLINKS_FORMATS": "mybank://activate,otherbank://go",
            "TOKENCTL_TMP_RETRY_BACKOFF_MS": "50,60,70",
        ])
        #expect(settings.deeplinkFormats.map(\.description) == ["mybank://activate", "otherbank://go"])
        #expect(settings.tmp.retry.backoffMilliseconds == [50, 60, 70])
    }

    @Test(arguments: [
        (#"{"tmp": {"timeout-ms": "fast"}}"#, "key tmp.timeout-ms: expected an integer"),
        (#"{"tmp": {"timeout-ms": 0}}"#, "key tmp.timeout-ms: expected an integer of at least 1"),
        (#"{"tmp": {"timeout-ms": 1.5}}"#, "key tmp.timeout-ms: expected an integer"),
        (#"{"deeplinks": {"formats": "mybank://activate"}}"#, "key deeplinks.formats: expected a list of strings"),
        (#"{"deeplinks": {"formats": []}}"#, "key deeplinks.formats: expected a non-empty list"),
        (
            #"{"deeplinks": {"formats": ["mybank"]}}"#,
            #"key deeplinks.formats: expected launch URLs of the form scheme://host[/path], such as "mybank://activate"; "mybank" is not one"#
        ),
        (
            #"{"deeplinks": {"formats": []}}"#,
            "key deeplinks.formats: expected a non-empty list of launch URLs of the form"
        ),
        (
            #"{"onboarding": {"require-finished-user-activation": "yes"}}"#,
            "key onboarding.require-finished-user-activation: expected true or false"
        ),
        (#"{"tmp": {"base-url": "ftp://x"}}"#, "key tmp.base-url: expected an http:// or https:// URL"),
        (#"{"database": {"path": {"nested": 1}}}"#, "key database.path: expected a value, not an object"),
        (#"{"database": {"path": ""}}"#, "key database.path: expected a non-empty string"),
        (#"{"tmp": {"transport": "threads"}}"#, "key tmp.transport: expected easy or multi"),
        (#"{"tmp": "x"}"#, "key tmp: expected an object of tmp.* keys"),
        (#"{"tmp": {"retry": 3}}"#, "key tmp.retry: expected an object of tmp.retry.* keys"),
    ])
    func aValueOfTheWrongTypeNamesTheFileAndKey(json: String, message: String) async throws {
        let file = write(json)
        let error = try await #require(throws: ConfigurationError.self) {
            try await load(flags: .init(configFile: file))
        }
        #expect(error.code.rawValue == "config.invalidValue")
        #expect(error.message.contains("configuration file \(file): \(message)"), "\(error.message)")
    }

    @Test func aWrongTypeInTheEnvironmentNamesTheVariable() async throws {
        let error = try await #require(throws: ConfigurationError.self) {
            try await load(["TOKENCTL_TMP_RETRY_ATTEMPTS": "many"])
        }
        #expect(error.message == "environment variable TOKENCTL_TMP_RETRY_ATTEMPTS: expected an integer")
    }

    @Test func aMissingFileNamedByTheFlagOrVariableIsAnError() async throws {
        let missing = directory.file("nope.json")
        let byFlag = try await #require(throws: ConfigurationError.self) {
            try await load(flags: .init(configFile: missing))
        }
        #expect(byFlag.code.rawValue == "config.fileMissing")
        #expect(byFlag.message.contains(missing))
        let byVariable = try await #require(throws: ConfigurationError.self) {
            try await load(["TOKENCTL_CONFIG": missing])
        }
        #expect(byVariable.message.contains("TOKENCTL_CONFIG"))
    }

    @Test(arguments: ["{\"tmp\": ", "[1, 2]", "not json", ""])
    func unreadableJSONNamesTheFile(text: String) async throws {
        let file = write(text)
        let error = try await #require(throws: ConfigurationError.self) {
            try await load(flags: .init(configFile: file))
        }
        #expect(error.code.rawValue == "config.invalidJSON")
        #expect(error.message.hasPrefix("configuration file \(file) is not valid JSON"))
    }

    @Test func anUnknownKeyIsAnErrorWithASuggestion() async throws {
        let file = write(#"{"onboarding": {"require-finished-user-activaton": true}}"#)
        let error = try await #require(throws: ConfigurationError.self) {
            try await load(flags: .init(configFile: file))
        }
        #expect(error.code.rawValue == "config.unknownKey")
        #expect(
            error.message
                == "configuration file \(file): unknown key onboarding.require-finished-user-activaton (did you mean onboarding.require-finished-user-activation?)"
        )
    }

    @Test func nullMeansNotSet() async throws {
        let file = write(#"{"tmp": {"auth": {"bearer-token-file": null}, "timeout-ms": null}}"#)
        let settings = try await load(flags: .init(configFile: file))
        #expect(settings.tmp.authentication.bearerTokenFile == nil)
        #expect(settings.tmp.timeoutMilliseconds == 15_000)
    }

    @Test func relativeSecretPathsAreRelativeToTheFile() async throws {
        let file = write(
            #"{"tmp": {"auth": {"bearer-token-file": "secrets/tmp.token"}, "tls": {"ca-file": "/abs/ca.pem"}}}"#)
        let settings = try await load(flags: .init(configFile: file))
        #expect(settings.tmp.authentication.bearerTokenFile == directory.file("secrets/tmp.token"))
        #expect(settings.tmp.tls.caFile == "/abs/ca.pem")
    }

    @Test func aRelativeFileNameIsTheSystemdCredentialOfThatNameWhenOneWasPassed() async throws {
        let credentials = directory.file("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: credentials + "/tmp.token", contents: Data("t\n".utf8)))
        let file = write(
            #"{"tmp": {"auth": {"bearer-token-file": "tmp.token", "api-key-file": "api.key"}, "tls": {"ca-file": "/etc/ssl/ca.pem"}}}"#
        )
        let underSystemd = try await load(["CREDENTIALS_DIRECTORY": credentials], flags: .init(configFile: file))
        #expect(underSystemd.tmp.authentication.bearerTokenFile == credentials + "/tmp.token")
        // No credential of that name: relative to the configuration file, as without systemd.
        #expect(underSystemd.tmp.authentication.apiKeyFile == directory.file("api.key"))
        #expect(underSystemd.tmp.tls.caFile == "/etc/ssl/ca.pem")
        let atTheShell = try await load(flags: .init(configFile: file))
        #expect(atTheShell.tmp.authentication.bearerTokenFile == directory.file("tmp.token"))
    }

    @Test func theLogFormatComesFromTheFileOrTheEnvironment() async throws {
        let file = write(#"{"log": {"format": "json"}}"#)
        #expect(try await load(flags: .init(configFile: file)).logFormat == .json)
        #expect(try await load(["TOKENCTL_LOG_FORMAT": "text"], flags: .init(configFile: file)).logFormat == .text)
        #expect(try await load().logFormat == .text)
        let wrong = write(#"{"log": {"format": "xml"}}"#, to: "wrong.json")
        let error = await #expect(throws: ConfigurationError.self) { try await load(flags: .init(configFile: wrong)) }
        #expect(error?.code == .configInvalidValue)
        #expect(error?.message.contains("log.format") == true)
    }

    @Test(arguments: [
        ("https://tmp.example.com", true), ("https://example.org/x", true), ("http://tmp.invalid:8080", true),
        ("https://api.example", true), ("https://tmp.mybank.com", false), ("http://127.0.0.1:8787", false),
        ("https://example.community", false),
    ])
    func aReservedExampleHostIsAPlaceholder(url: String, isPlaceholder: Bool) {
        var thrown: ConfigurationError?
        do { try ConfigCheck.notPlaceholder("tmp.base-url", url) } catch { thrown = error }
        #expect((thrown != nil) == isPlaceholder)
        #expect(thrown.map { $0.message.contains("TOKENCTL_TMP_BASE_URL") } ?? true)
    }
}

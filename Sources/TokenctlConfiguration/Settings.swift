import Foundation
import HTTPTransport
import OnboardingCore
import TokenActivation
import WalletModel

/// The resolved configuration of one tokenctl process: flags, then `TOKENCTL_*`
/// environment variables, then the configuration file, then built-in defaults. Each
/// layer's part is that layer's own type: the database's ``StoreOptions``, TMP's
/// ``TMPSettings``, the onboarding core's ``OnboardingSettings``.
///
/// The built-in defaults equal `Config/tokenctl.json` in the repository.
public struct Settings: Sendable, Equatable {
    /// The SQLite database (`database.path`), used when ``postgres`` is nil.
    public var database: StoreOptions
    /// The PostgreSQL database (`database.url`) shared by many hosts, when set.
    public var postgres: PostgresOptions?
    /// This host's name in attempt leases (`--host-id`, `database.host-id`, else the host
    /// name) and how long a lease lasts (`database.lease-ms`, else twice the longest attempt):
    /// in effect on PostgreSQL, resolved on SQLite too so that `config show` says what a
    /// move to PostgreSQL would use.
    public var hostID = "localhost"
    public var leaseMilliseconds = 60_000
    /// How long a call may take to reach the primary again after its connection broke,
    /// counted from the arrival of the request or command it serves
    /// (`database.reconnect-window-ms`; in effect on PostgreSQL).
    public var reconnectWindowMilliseconds = 30_000
    /// Launch URLs configured in MDES (`scheme://host[/path]`) that deeplinks must match,
    /// parsed once when the configuration is loaded.
    public var deeplinkFormats: [DeeplinkFormat]
    public var tmp: TMPSettings
    public var onboarding: OnboardingSettings
    /// The PIN app login (`login.*`).
    public var login: LoginSettings
    /// The resident service (`service.*`).
    public var service: ServiceSettings
    /// The audit's transparency log (`audit.*`).
    public var audit = AuditSettings()
    /// How log lines are written (`log.format`).
    public var logFormat: LogFormat = .text
    /// The configuration file that was read, if any.
    public var configFile: String?

    /// The sandbox's default address, used by the built-in TMP and onboarding base URLs.
    public static let sandboxBaseURL = "http://127.0.0.1:8787"

    /// The built-in defaults, with the database under `$XDG_DATA_HOME/tokenctl/`
    /// (`~/.local/share/tokenctl/` when unset).
    public static func builtIn(environment: [String: String]) -> Settings {
        Settings(
            database: StoreOptions(
                path: defaultDatabasePath(environment: environment), createsDirectory: true,
                busyTimeoutMilliseconds: 30_000, durability: .normal
            ),
            postgres: nil,
            deeplinkFormats: [DeeplinkFormat("mybank://activate")!],
            tmp: TMPSettings(
                baseURL: sandboxBaseURL,
                connectTimeoutMilliseconds: 3_000,
                timeoutMilliseconds: 15_000,
                retry: TMPSettings.Retry(attempts: 3, backoffMilliseconds: [100, 300]),
                authentication: TMPSettings.Authentication(),
                tls: TLSFiles()
            ),
            onboarding: OnboardingSettings(
                connection: ConnectionSettings(
                    baseURL: sandboxBaseURL, connectTimeoutMilliseconds: 3_000, timeoutMilliseconds: 20_000),
                instanceID: "default",
                requiresFinishedUserActivation: false
            ),
            login: LoginSettings(
                connection: ConnectionSettings(
                    baseURL: sandboxBaseURL, connectTimeoutMilliseconds: 3_000, timeoutMilliseconds: 20_000),
                clientID: "sandbox-client",
                relyingPartyURL: sandboxBaseURL + "/rp"
            ),
            service: ServiceSettings(socket: ServiceSettings.defaultSocket(environment: environment)),
            configFile: nil
        )
    }

    /// `$XDG_DATA_HOME/tokenctl/tokenctl.sqlite`, else under `$HOME/.local/share`. A service
    /// started without either (systemd gives system services no HOME) uses the account's home
    /// from the user database, and a system account without a usable home (`/`,
    /// `/nonexistent`) uses `/var/lib/tokenctl/`.
    static func defaultDatabasePath(
        environment: [String: String], accountHome: String? = Settings.accountHome()
    ) -> String {
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            return dataHome + "/tokenctl/tokenctl.sqlite"
        }
        if let home = environment["HOME"], home.hasPrefix("/"), home != "/" {
            return home + "/.local/share/tokenctl/tokenctl.sqlite"
        }
        if let home = accountHome, home.hasPrefix("/"), home != "/", FileManager.default.fileExists(atPath: home) {
            return home + "/.local/share/tokenctl/tokenctl.sqlite"
        }
        return "/var/lib/tokenctl/tokenctl.sqlite"
    }

    /// This process's account home from the user database (getpwuid), if any.
    static func accountHome() -> String? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory)
    }
}

/// The resolved configuration of one tokenctl process: flags, then `TOKENCTL_*`
/// environment variables, then the configuration file, then built-in defaults.
///
/// The built-in defaults equal `Config/tokenctl.json` in the repository.
import Storage

public struct Settings: Sendable, Equatable {
    public struct Database: Sendable, Equatable {
        /// Absolute or working-directory-relative path of the SQLite file.
        public var path: String
        /// True when the path came from a flag, the environment or a file (its directory
        /// must exist); false for the built-in location, whose directory is created.
        public var isExplicit: Bool
        public var busyTimeoutMilliseconds: Int
        /// `normal`: a commit survives a crash of the process; `full`: also a power loss.
        public var synchronous: StoreOptions.Durability
    }

    public struct Retry: Sendable, Equatable {
        public var attempts: Int
        public var backoffMilliseconds: [Int]
    }

    public struct Authentication: Sendable, Equatable {
        public var bearerTokenFile: String?
        public var apiKeyHeader: String?
        public var apiKeyFile: String?
    }

    public struct TLS: Sendable, Equatable {
        public var caFile: String?
        public var clientCertificateFile: String?
        public var clientKeyFile: String?
    }

    /// How concurrent requests share libcurl.
    public enum Transport: String, Sendable, Equatable {
        /// One easy handle (and keep-alive connection) per concurrent worker.
        case easy
        /// One multi handle on one thread, connections pooled.
        case multi
    }

    public struct TMP: Sendable, Equatable {
        public var baseURL: String
        public var transport: Transport
        public var connectTimeoutMilliseconds: Int
        public var timeoutMilliseconds: Int
        public var retry: Retry
        public var authentication: Authentication
        public var tls: TLS
    }

    /// The onboarding core's PowerAuth parameters. The application secret is read
    /// from `applicationSecretFile` or `TOKENCTL_ONBOARDING_POWERAUTH_APPLICATION_SECRET`
    /// when a command needs it, never from the configuration file itself.
    public struct PowerAuth: Sendable, Equatable {
        /// Where `/pa/v3/…` lives; nil means the onboarding base URL.
        public var baseURL: String?
        public var applicationKey: String?
        public var applicationSecretFile: String?
        /// Base64 of the uncompressed P-256 master server public key.
        public var masterServerPublicKey: String?
    }

    public struct Onboarding: Sendable, Equatable {
        public var baseURL: String
        public var instanceID: String
        public var requiresFinishedUserActivation: Bool
        public var powerAuth = PowerAuth()
    }

    public var database: Database
    /// Launch URLs configured in MDES (`scheme://host[/path]`) that deeplinks must match.
    public var deeplinkFormats: [String]
    public var tmp: TMP
    public var onboarding: Onboarding
    /// The configuration file that was read, if any.
    public var configFile: String?

    /// The sandbox's default address, used by the built-in TMP and onboarding base URLs.
    public static let sandboxBaseURL = "http://127.0.0.1:8787"

    /// The built-in defaults, with the database under `$XDG_DATA_HOME/tokenctl/`
    /// (`~/.local/share/tokenctl/` when unset).
    public static func builtIn(environment: [String: String]) -> Settings {
        Settings(
            database: Database(
                path: defaultDatabasePath(environment: environment),
                isExplicit: false,
                busyTimeoutMilliseconds: 30_000,
                synchronous: .normal
            ),
            deeplinkFormats: ["mybank://activate"],
            tmp: TMP(
                baseURL: sandboxBaseURL,
                transport: .easy,
                connectTimeoutMilliseconds: 3_000,
                timeoutMilliseconds: 15_000,
                retry: Retry(attempts: 3, backoffMilliseconds: [100, 300]),
                authentication: Authentication(),
                tls: TLS()
            ),
            onboarding: Onboarding(
                baseURL: sandboxBaseURL,
                instanceID: "default",
                requiresFinishedUserActivation: false
            ),
            configFile: nil
        )
    }

    static func defaultDatabasePath(environment: [String: String]) -> String {
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? "") + "/.local/share"
        return dataHome + "/tokenctl/tokenctl.sqlite"
    }
}

import ArgumentParser
import Foundation
import Logging
import Synchronization
import TokenActivation
import TokenctlApp
import TokenctlConfiguration

/// Options every command takes, before or after the subcommand.
public struct GlobalOptions: ParsableArguments, Sendable {
    public init() {}

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Configuration file (default: $TOKENCTL_CONFIG, then ~/.config/tokenctl/config.json, then /etc/tokenctl/config.json).",
            valueName: "path"), completion: .file(extensions: ["json"]))
    public var config: String?

    @Option(
        name: .long, help: ArgumentHelp("SQLite database file (overrides database.path).", valueName: "path"),
        completion: .file())
    public var database: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "This host's name in attempt leases on PostgreSQL (overrides database.host-id; default: the host name).",
            valueName: "name"))
    public var hostID: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Log level on standard error: trace, debug, info, notice, warning, error, critical (default: warning, notice for serve; or $TOKENCTL_LOG_LEVEL).",
            valueName: "level"),
        completion: .list(["trace", "debug", "info", "notice", "warning", "error", "critical"]))
    public var logLevel: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Log lines as text or json, one record per line (default: log.format, else text). Under systemd each line starts with its syslog priority, <4> for a warning.",
            valueName: "format"), completion: .list(LogFormat.allCases.map(\.rawValue)))
    public var logFormat: String?

    public func validate() throws {
        if let problem = GlobalFlagValues.problem(
            config: config, database: database, hostID: hostID, logLevel: logLevel, logFormat: logFormat)
        {
            throw ValidationError(problem)
        }
    }

    /// Sets up logging (at `defaultLogLevel` unless a level is given) and resolves the configuration.
    public func settings(defaultLogLevel: Logger.Level = .warning) async throws -> Settings {
        let settings = try await loader(defaultLogLevel: defaultLogLevel).load(flags: flags)
        LogOutput.configure(settings)
        return settings
    }

    /// The settings of `db copy`'s target: a postgres:// URL in place of database.url, or a
    /// SQLite file (as --database gives).
    public func settings(copyTarget target: String) async throws -> Settings {
        var flags = flags
        if Settings.namesPostgres(target) {
            flags.databaseURL = target
            flags.databasePath = nil
        } else {
            flags.databasePath = target
            flags.databaseURL = nil
        }
        return try await loader().load(flags: flags)
    }

    /// The settings of a command line that gives none of these options.
    public static func defaultSettings() async throws -> Settings {
        let settings = try await loader(logLevel: nil, logFormat: nil).load(
            flags: .init(configFile: nil, databasePath: nil))
        LogOutput.configure(settings)
        return settings
    }

    /// The settings with the origin of each value, for `config show`.
    public func configReport() async throws -> ConfigReport {
        try await loader().report(flags: flags)
    }

    private var flags: SettingsLoader.Flags { .init(configFile: config, databasePath: database, hostID: hostID) }

    /// These options as given, for a command run by another executable (`serve`).
    public var arguments: [String] {
        [
            ("--config", config), ("--database", database), ("--host-id", hostID), ("--log-level", logLevel),
            ("--log-format", logFormat),
        ]
        .flatMap { name, value in value.map { [name, $0] } ?? [] }
    }

    private func loader(defaultLogLevel: Logger.Level = .warning) -> SettingsLoader {
        Self.loader(
            logLevel: logLevel, logFormat: logFormat.flatMap(LogFormat.init(rawValue:)),
            defaultLogLevel: defaultLogLevel)
    }

    private static func loader(
        logLevel: String?, logFormat: LogFormat?, defaultLogLevel: Logger.Level = .warning
    ) -> SettingsLoader {
        bootstrapLogging(level: logLevel, format: logFormat, defaultLevel: defaultLogLevel)
        return SettingsLoader(environment: ProcessInfo.processInfo.environment)
    }

    /// The settings of a command that only reads: a database this user may read but not
    /// write (an auditor's) is opened read-only.
    public func readingSettings() async throws -> Settings {
        var settings = try await settings()
        settings.database.readsOnly = true
        return settings
    }

    /// Logs go to standard error at `level`, else `$TOKENCTL_LOG_LEVEL`, else warning. Only
    /// the first call sets them up (`db copy` loads two settings; swift-log allows one setup).
    public static func bootstrapLogging(
        level: String? = nil, format: LogFormat? = nil, defaultLevel: Logger.Level = .warning
    ) {
        LogOutput.bootstrap(
            level: level, format: format, defaultLevel: defaultLevel, environment: ProcessInfo.processInfo.environment)
    }

    public static let namesTakingValue: Set<String> = [
        "--config", "--database", "--host-id", "--log-level", "--log-format",
    ]

    /// Moves global options found before the first subcommand to after it, where
    /// ArgumentParser reads them (before a `--` terminator, if any).
    public static func movingLeadingOptions(_ arguments: [String]) -> [String] {
        var moved: [String] = []
        var rest = arguments[...]
        while let first = rest.first {
            let name = String(first.split(separator: "=", maxSplits: 1)[0])
            guard namesTakingValue.contains(name) else { break }
            rest = rest.dropFirst()
            moved.append(first)
            if !first.contains("="), let value = rest.first {
                moved.append(value)
                rest = rest.dropFirst()
            }
        }
        guard !moved.isEmpty else { return arguments }
        var result = Array(rest)
        let terminator = result.firstIndex(of: "--") ?? result.endIndex
        result.insert(contentsOf: moved, at: terminator)
        return result
    }
}

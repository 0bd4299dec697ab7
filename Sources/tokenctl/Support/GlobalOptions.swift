import ArgumentParser
import Foundation
import Logging
import Synchronization
import TokenActivation
import TokenctlApp

/// Options every command takes, before or after the subcommand.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Configuration file (default: $TOKENCTL_CONFIG, then ~/.config/tokenctl/config.json, then /etc/tokenctl/config.json).", valueName: "path"), completion: .file(extensions: ["json"]))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("SQLite database file (overrides database.path).", valueName: "path"), completion: .file())
    var database: String?

    @Option(name: .long, help: ArgumentHelp("This host's name in attempt leases on PostgreSQL (overrides database.host-id; default: the host name).", valueName: "name"))
    var hostID: String?

    @Option(name: .long, help: ArgumentHelp("Log level on standard error: trace, debug, info, notice, warning, error, critical (default: warning, or $TOKENCTL_LOG_LEVEL).", valueName: "level"), completion: .list(["trace", "debug", "info", "notice", "warning", "error", "critical"]))
    var logLevel: String?

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    /// Sets up logging and resolves the configuration.
    func settings() async throws -> Settings {
        try await loader().load(flags: flags)
    }

    /// The settings of `db copy`'s target: a postgres:// URL in place of database.url, or a
    /// SQLite file (as --database gives).
    func settings(copyTarget target: String) async throws -> Settings {
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
    static func defaultSettings() async throws -> Settings {
        try await loader(logLevel: nil).load(flags: .init(configFile: nil, databasePath: nil))
    }

    /// The settings with the origin of each value, for `config show`.
    func configReport() async throws -> ConfigReport {
        try await loader().report(flags: flags)
    }

    private var flags: SettingsLoader.Flags { .init(configFile: config, databasePath: database, hostID: hostID) }

    private func loader() -> SettingsLoader {
        Self.loader(logLevel: logLevel)
    }

    private static func loader(logLevel: String?) -> SettingsLoader {
        bootstrapLogging(level: logLevel)
        return SettingsLoader(environment: ProcessInfo.processInfo.environment)
    }

    /// The settings of a command that only reads: a database this user may read but not
    /// write (an auditor's) is opened read-only.
    func readingSettings() async throws -> Settings {
        var settings = try await settings()
        settings.database.readsOnly = true
        return settings
    }

    private static let loggingBootstrapped = Atomic<Bool>(false)

    /// Logs go to standard error at `level`, else `$TOKENCTL_LOG_LEVEL`, else warning. Only
    /// the first call sets them up (`db copy` loads two settings; swift-log allows one setup).
    static func bootstrapLogging(level name: String? = nil) {
        guard !loggingBootstrapped.exchange(true, ordering: .relaxed) else { return }
        let name = name ?? ProcessInfo.processInfo.environment["TOKENCTL_LOG_LEVEL"] ?? "warning"
        let level = Logger.Level(rawValue: name) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    static let namesTakingValue: Set<String> = ["--config", "--database", "--host-id", "--log-level"]

    /// Moves global options found before the first subcommand to after it, where
    /// ArgumentParser reads them (before a `--` terminator, if any).
    static func movingLeadingOptions(_ arguments: [String]) -> [String] {
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

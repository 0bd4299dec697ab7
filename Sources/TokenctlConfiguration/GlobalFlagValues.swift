import Logging

/// The checks of the options every command takes (and `tokenctl serve`): a value that cannot
/// be right is a usage error naming the flag, not a configuration error later.
public enum GlobalFlagValues {
    /// The first problem among the values given, nil when there is none.
    public static func problem(
        config: String?, database: String?, hostID: String?, logLevel: String?, logFormat: String?
    ) -> String? {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            return "--log-level must be one of trace, debug, info, notice, warning, error, critical"
        }
        if let logFormat, LogFormat(rawValue: logFormat) == nil {
            return "--log-format must be one of \(LogFormat.names)"
        }
        if let hostID, isBlank(hostID) { return "--host-id must name this host, not be empty" }
        if let database, isBlank(database) { return "--database must name a SQLite database file, not be empty" }
        if let config, isBlank(config) { return "--config must name a configuration file, not be empty" }
        return nil
    }

    /// The options every command takes, each with a value.
    public static let names: Set<String> = ["--config", "--database", "--host-id", "--log-level", "--log-format"]

    /// `arguments` without the options every command takes (`--database F`, `--database=F`):
    /// what a command that uses none of them (the sandbox, the demo) is given, so that a
    /// script passing its global options to every command works there too. Nothing after
    /// `--` is touched.
    public static func withoutGlobalOptions(_ arguments: [String]) -> [String] {
        var kept: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                kept += arguments[index...]
                break
            }
            if names.contains(argument), index + 1 < arguments.count {
                index += 2
                continue
            }
            if let equals = argument.firstIndex(of: "="), names.contains(String(argument[..<equals])) {
                index += 1
                continue
            }
            kept.append(argument)
            index += 1
        }
        return kept
    }

    private static func isBlank(_ value: String) -> Bool {
        value.unicodeScalars.allSatisfy(\.properties.isWhitespace)
    }
}

import Logging
import TokenctlConfiguration
import WalletModel

/// The library side of `tokenctl db …`: schema status and migration on either database.
/// (Copies between them: ``DatabaseCopy``.)
public struct DatabaseAdmin: Sendable {
    let settings: Settings
    let logger: Logger

    public init(settings: Settings, logger: Logger = Logger(label: "tokenctl.database")) {
        self.settings = settings
        self.logger = logger
    }

    public func status() async throws -> DatabaseStatus {
        try await settings.store.status(logger: logger)
    }

    /// DESIGN §10's warning when a failover may lose committed attempts (the primary has no
    /// synchronous standby, or `synchronous_commit` is below `on`); nil on SQLite, when the
    /// replication is safe, or when the server cannot be asked (`db status` says why).
    public func replicationWarning() async -> String? {
        guard settings.postgres != nil else { return nil }
        return try? await status().replication?.warning
    }

    /// Applies the missing migrations.
    /// - Returns: the names of those applied (none when the schema was current).
    public func migrate() async throws -> (applied: [String], status: DatabaseStatus) {
        let applied = try await settings.store.migrate(logger: logger)
        return (applied, try await status())
    }
}

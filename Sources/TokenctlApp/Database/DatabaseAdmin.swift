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

    /// Applies the missing migrations.
    /// - Returns: the names of those applied (none when the schema was current).
    public func migrate() async throws -> (applied: [String], status: DatabaseStatus) {
        let applied = try await settings.store.migrate(logger: logger)
        return (applied, try await status())
    }
}

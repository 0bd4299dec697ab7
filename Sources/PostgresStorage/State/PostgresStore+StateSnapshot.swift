import PostgresNIO
import WalletModel

extension PostgresStore: StateDatabase {
    /// The four tables read in one transaction (one snapshot).
    public func stateSnapshot() throws -> StateSnapshot {
        try transaction { connection in
            try connection.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger)
            return try Self.stateSnapshot(connection, logger)
        }
    }

    static func stateSnapshot(_ connection: PostgresConnection, _ logger: Logger) throws -> StateSnapshot {
        StateSnapshot(
            deviceActivations: try deviceActivations(connection, logger),
            onboardingProcesses: try onboardingProcesses(connection, logger),
            loginUsers: try loginUsers(connection, logger), verifications: try verifications(connection, logger)
        )
    }

    /// Inserts every row of `snapshot` on `connection` (inside the caller's transaction).
    static func insert(_ snapshot: StateSnapshot, _ connection: PostgresConnection, _ logger: Logger) throws {
        for activation in snapshot.deviceActivations { _ = try connection.answer(insert(activation), logger) }
        for process in snapshot.onboardingProcesses { _ = try connection.answer(insert(process), logger) }
        for user in snapshot.loginUsers { _ = try connection.answer(insert(user), logger) }
        for verification in snapshot.verifications { _ = try connection.answer(insert(verification), logger) }
    }
}

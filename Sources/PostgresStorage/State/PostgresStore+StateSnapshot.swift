import PostgresNIO
import WalletModel

extension PostgresStore: StateDatabase {
    /// The four tables read in one transaction (one snapshot).
    public func stateSnapshot() async throws -> StateSnapshot {
        try await transaction { connection in
            try await connection.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger)
            return try await Self.stateSnapshot(connection, logger)
        }
    }

    static func stateSnapshot(_ connection: PostgresConnection, _ logger: Logger) async throws -> StateSnapshot {
        StateSnapshot(
            deviceActivations: try await deviceActivations(connection, logger),
            onboardingProcesses: try await onboardingProcesses(connection, logger),
            loginUsers: try await loginUsers(connection, logger),
            verifications: try await verifications(connection, logger)
        )
    }

    /// Inserts every row of `snapshot` on `connection` (inside the caller's transaction).
    static func insert(_ snapshot: StateSnapshot, _ connection: PostgresConnection, _ logger: Logger) async throws {
        for activation in snapshot.deviceActivations { _ = try await connection.answer(insert(activation), logger) }
        for process in snapshot.onboardingProcesses { _ = try await connection.answer(insert(process), logger) }
        for user in snapshot.loginUsers { _ = try await connection.answer(insert(user), logger) }
        for verification in snapshot.verifications { _ = try await connection.answer(insert(verification), logger) }
    }
}

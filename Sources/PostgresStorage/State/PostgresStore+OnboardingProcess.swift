import PostgresNIO
import WalletModel

/// `onboarding_process` (migration v2).
extension PostgresStore: OnboardingProcessRecords {
    public func onboardingProcessID(instanceID: String) async throws -> String? {
        try await query("SELECT process_id FROM onboarding_process WHERE instance_id = \(instanceID)").first?.decode(
            String.self)
    }

    public func insertOnboardingProcess(_ process: OnboardingProcessRow) async throws -> Bool {
        try await query(Self.insert(process, onConflict: "ON CONFLICT DO NOTHING")).metadata.rows == 1
    }

    public func deleteOnboardingProcess(instanceID: String, processID: String?) async throws {
        try await query(
            "DELETE FROM onboarding_process WHERE instance_id = \(instanceID) AND (\(processID)::text IS NULL OR process_id = \(processID))"
        )
    }

    static func insert(_ process: OnboardingProcessRow, onConflict: String = "") -> PostgresQuery {
        """
        INSERT INTO onboarding_process (instance_id, process_id, started_at) VALUES (\(process.instanceID), \(process.processID), \(process.startedAt))
        \(unescaped: onConflict)
        """
    }

    static func onboardingProcesses(
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [OnboardingProcessRow] {
        try await connection.answer(
            "SELECT instance_id, process_id, started_at FROM onboarding_process ORDER BY instance_id", logger
        ).map { row in
            let cells = NamedCells(row)
            return OnboardingProcessRow(
                instanceID: try cells["instance_id"], processID: try cells["process_id"],
                startedAt: try cells["started_at"])
        }
    }
}

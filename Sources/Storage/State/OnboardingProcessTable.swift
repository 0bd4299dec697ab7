import GRDB
import WalletModel

/// `onboarding_process` (migration v4).
extension Store: OnboardingProcessRecords {
    public func onboardingProcessID(instanceID: String) async throws -> String? {
        try await read { db in
            try String.fetchOne(
                db, sql: "SELECT process_id FROM onboarding_process WHERE instance_id = ?", arguments: [instanceID])
        }
    }

    public func insertOnboardingProcess(_ process: OnboardingProcessRow) async throws -> Bool {
        try await write { db in
            try OnboardingProcessTable.insert(process, db, onConflict: "ON CONFLICT DO NOTHING")
            return db.changesCount == 1
        }
    }

    public func deleteOnboardingProcess(instanceID: String, processID: String?) async throws {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM onboarding_process WHERE instance_id = ? AND (? IS NULL OR process_id = ?)",
                arguments: [instanceID, processID, processID]
            )
        }
    }
}

enum OnboardingProcessTable {
    static func insert(_ process: OnboardingProcessRow, _ db: Database, onConflict: String = "") throws {
        try db.execute(
            sql: "INSERT INTO onboarding_process (instance_id, process_id, started_at) VALUES (?, ?, ?) \(onConflict)",
            arguments: [process.instanceID, process.processID, process.startedAt]
        )
    }

    static func all(_ db: Database) throws -> [OnboardingProcessRow] {
        try Row.fetchAll(
            db, sql: "SELECT instance_id, process_id, started_at FROM onboarding_process ORDER BY instance_id"
        ).map { row in
            OnboardingProcessRow(
                instanceID: row["instance_id"], processID: row["process_id"], startedAt: row["started_at"])
        }
    }
}

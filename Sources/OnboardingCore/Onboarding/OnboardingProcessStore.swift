import Foundation
import GRDB
import Storage

/// The `onboarding_process` table: the running process id, one per instance id.
/// It is the onboarding core's only persisted process state.
struct OnboardingProcessStore {
    let store: Store

    func processID(_ instanceID: String) throws -> String? {
        try store.read { db in
            try String.fetchOne(db, sql: "SELECT process_id FROM onboarding_process WHERE instance_id = ?", arguments: [instanceID])
        }
    }

    /// Stores a new process id; false when the instance already has one.
    func insert(_ processID: String, instanceID: String) throws -> Bool {
        try store.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO onboarding_process (instance_id, process_id, started_at) VALUES (?, ?, ?)",
                arguments: [instanceID, processID, Date().ISO8601Format()]
            )
            return db.changesCount == 1
        }
    }

    /// Forgets the instance's process id, but only if it is still `processID` (a
    /// concurrent start may have replaced it).
    func clear(_ instanceID: String, processID: String? = nil) throws {
        try store.write { db in
            if let processID {
                try db.execute(sql: "DELETE FROM onboarding_process WHERE instance_id = ? AND process_id = ?", arguments: [instanceID, processID])
            } else {
                try db.execute(sql: "DELETE FROM onboarding_process WHERE instance_id = ?", arguments: [instanceID])
            }
        }
    }
}

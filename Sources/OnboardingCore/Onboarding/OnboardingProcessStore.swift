import Foundation
import WalletModel

/// The `onboarding_process` table: the running process id, one per instance id.
/// It is the onboarding core's only persisted process state.
struct OnboardingProcessStore {
    let store: any StateDatabase

    func processID(_ instanceID: String) throws -> String? {
        try store.readState { db in
            try db.row("SELECT process_id FROM onboarding_process WHERE instance_id = ?", [.text(instanceID)])?.text("process_id")
        }
    }

    /// Stores a new process id; false when the instance already has one.
    func insert(_ processID: String, instanceID: String) throws -> Bool {
        try store.writeState { db in
            try db.execute(
                "INSERT INTO onboarding_process (instance_id, process_id, started_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [.text(instanceID), .text(processID), .text(Date().ISO8601Format())]
            ) == 1
        }
    }

    /// Forgets the instance's process id, but only if it is still `processID` (a
    /// concurrent start may have replaced it).
    func clear(_ instanceID: String, processID: String? = nil) throws {
        try store.writeState { db in
            if let processID {
                try db.execute("DELETE FROM onboarding_process WHERE instance_id = ? AND process_id = ?", [.text(instanceID), .text(processID)])
            } else {
                try db.execute("DELETE FROM onboarding_process WHERE instance_id = ?", [.text(instanceID)])
            }
        }
    }
}

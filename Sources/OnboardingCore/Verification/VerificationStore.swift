import Foundation
import WalletModel

/// The `identity_verification` table: per instance id, the last successful status and the
/// document types the user chose.
struct VerificationStore {
    struct Record: Equatable {
        /// The last successful status: nil once a status call failed (or none was made).
        var lastStatus: LastStatus?
        var chosenTypes: [DocumentType]?
    }

    struct LastStatus: Equatable {
        var processID: String
        var phase: VerificationPhase?
        var status: VerificationStatus
    }

    let store: any StateDatabase
    let instanceID: String

    func load() throws -> Record {
        try store.readState { db in
            guard let row = try db.row("SELECT process_id, phase, status, document_types FROM identity_verification WHERE instance_id = ?", [.text(instanceID)]) else {
                return Record()
            }
            let status = row.text("status").flatMap(VerificationStatus.init(rawValue:))
            var last: LastStatus?
            if let processID = row.text("process_id"), let status {
                last = LastStatus(processID: processID, phase: row.text("phase").flatMap(VerificationPhase.init(rawValue:)), status: status)
            }
            let types = row.text("document_types").map { $0.split(separator: ",").map { DocumentType(rawValue: String($0)) } }
            return Record(lastStatus: last, chosenTypes: types)
        }
    }

    /// Keeps a successful status; the chosen types go when the status is one that ends (or
    /// has not begun) the document step.
    func saveStatus(_ last: LastStatus) throws {
        let clearsTypes: Set<VerificationStatus> = [.failed, .rejected, .notInitialized, .accepted]
        try upsert(
            set: "process_id = excluded.process_id, phase = excluded.phase, status = excluded.status"
                + (clearsTypes.contains(last.status) ? ", document_types = NULL" : "") + ", updated_at = excluded.updated_at",
            values: [last.processID, last.phase?.rawValue, last.status.rawValue, nil]
        )
    }

    /// A status call failed: every later call needs a new one.
    func forgetStatus() throws {
        try upsert(set: "process_id = NULL, phase = NULL, status = NULL, updated_at = excluded.updated_at", values: [nil, nil, nil, nil])
    }

    func saveChosenTypes(_ types: [DocumentType]) throws {
        let joined = types.map(\.rawValue).joined(separator: ",")
        try upsert(set: "document_types = excluded.document_types, updated_at = excluded.updated_at", values: [nil, nil, nil, joined])
    }

    func delete() throws {
        try store.writeState { db in try db.execute("DELETE FROM identity_verification WHERE instance_id = ?", [.text(instanceID)]) }
    }

    private func upsert(set assignments: String, values: [String?]) throws {
        try store.writeState { db in
            try db.execute(
                """
                INSERT INTO identity_verification (instance_id, process_id, phase, status, document_types, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (instance_id) DO UPDATE SET \(assignments)
                """,
                [.text(instanceID)] + values.map { StateValue($0) } + [.text(Date().ISO8601Format())]
            )
        }
    }
}

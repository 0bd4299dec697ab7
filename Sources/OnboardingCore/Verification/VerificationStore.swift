import Foundation
import GRDB
import Storage

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

    let store: Store
    let instanceID: String

    func load() throws -> Record {
        try store.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT process_id, phase, status, document_types FROM identity_verification WHERE instance_id = ?", arguments: [instanceID]) else {
                return Record()
            }
            let processID: String? = row["process_id"]
            let status = (row["status"] as String?).flatMap(VerificationStatus.init(rawValue:))
            var last: LastStatus?
            if let processID, let status {
                last = LastStatus(processID: processID, phase: (row["phase"] as String?).flatMap(VerificationPhase.init(rawValue:)), status: status)
            }
            let types = (row["document_types"] as String?).map { $0.split(separator: ",").map { DocumentType(rawValue: String($0)) } }
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
        try store.write { db in try db.execute(sql: "DELETE FROM identity_verification WHERE instance_id = ?", arguments: [instanceID]) }
    }

    private func upsert(set assignments: String, values: [String?]) throws {
        try store.write { db in
            try db.execute(
                sql: """
                    INSERT INTO identity_verification (instance_id, process_id, phase, status, document_types, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (instance_id) DO UPDATE SET \(assignments)
                    """,
                arguments: StatementArguments([instanceID] + values + [Date().ISO8601Format()])
            )
        }
    }
}

import GRDB
import WalletModel

/// `identity_verification` (migration v6).
extension Store: VerificationRecords {
    public func verification(instanceID: String) async throws -> VerificationRow? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(VerificationTable.columns) FROM identity_verification WHERE instance_id = ?",
                arguments: [instanceID]
            )
            .map(VerificationTable.verification)
        }
    }

    public func changeVerification(instanceID: String, _ change: VerificationChange, updatedAt: String) async throws {
        let (assignments, values): (String, [String?]) =
            switch change {
            case .status(let processID, let phase, let status, let clearing):
                (
                    "process_id = excluded.process_id, phase = excluded.phase, status = excluded.status"
                        + (clearing ? ", document_types = NULL" : ""),
                    [processID, phase, status, nil]
                )
            case .statusForgotten:
                ("process_id = NULL, phase = NULL, status = NULL", [nil, nil, nil, nil])
            case .documentTypes(let types):
                ("document_types = excluded.document_types", [nil, nil, nil, types])
            }
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO identity_verification (instance_id, process_id, phase, status, document_types, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (instance_id) DO UPDATE SET \(assignments), updated_at = excluded.updated_at
                    """,
                arguments: StatementArguments([instanceID] + values + [updatedAt])
            )
        }
    }

    public func deleteVerification(instanceID: String) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM identity_verification WHERE instance_id = ?", arguments: [instanceID])
        }
    }
}

enum VerificationTable {
    static let columns = "instance_id, process_id, phase, status, document_types, updated_at"

    static func insert(_ verification: VerificationRow, _ db: Database) throws {
        let v = verification
        try db.execute(
            sql: "INSERT INTO identity_verification (\(columns)) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [v.instanceID, v.processID, v.phase, v.status, v.documentTypes, v.updatedAt]
        )
    }

    static func all(_ db: Database) throws -> [VerificationRow] {
        try Row.fetchAll(db, sql: "SELECT \(columns) FROM identity_verification ORDER BY instance_id").map(verification)
    }

    static func verification(_ row: Row) -> VerificationRow {
        VerificationRow(
            instanceID: row["instance_id"], processID: row["process_id"], phase: row["phase"], status: row["status"],
            documentTypes: row["document_types"], updatedAt: row["updated_at"]
        )
    }
}

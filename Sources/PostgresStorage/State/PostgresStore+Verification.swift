import PostgresNIO
import WalletModel

/// `identity_verification` (migration v2).
extension PostgresStore: VerificationRecords {
    static let verificationColumns = "instance_id, process_id, phase, status, document_types, updated_at"

    public func verification(instanceID: String) async throws -> VerificationRow? {
        try await query(
            "SELECT \(unescaped: Self.verificationColumns) FROM identity_verification WHERE instance_id = \(instanceID)"
        ).first.map(Self.verification)
    }

    public func changeVerification(instanceID: String, _ change: VerificationChange, updatedAt: String) async throws {
        let (assignments, row): (String, VerificationRow) =
            switch change {
            case .status(let processID, let phase, let status, let clearing):
                (
                    "process_id = excluded.process_id, phase = excluded.phase, status = excluded.status"
                        + (clearing ? ", document_types = NULL" : ""),
                    VerificationRow(
                        instanceID: instanceID, processID: processID, phase: phase, status: status, documentTypes: nil,
                        updatedAt: updatedAt)
                )
            case .statusForgotten:
                (
                    "process_id = NULL, phase = NULL, status = NULL",
                    VerificationRow(
                        instanceID: instanceID, processID: nil, phase: nil, status: nil, documentTypes: nil,
                        updatedAt: updatedAt)
                )
            case .documentTypes(let types):
                (
                    "document_types = excluded.document_types",
                    VerificationRow(
                        instanceID: instanceID, processID: nil, phase: nil, status: nil, documentTypes: types,
                        updatedAt: updatedAt)
                )
            }
        try await query(
            Self.insert(
                row,
                onConflict: "ON CONFLICT (instance_id) DO UPDATE SET \(assignments), updated_at = excluded.updated_at"))
    }

    public func deleteVerification(instanceID: String) async throws {
        try await query("DELETE FROM identity_verification WHERE instance_id = \(instanceID)")
    }

    static func insert(_ verification: VerificationRow, onConflict: String = "") -> PostgresQuery {
        let v = verification
        return """
            INSERT INTO identity_verification (\(unescaped: verificationColumns))
            VALUES (\(v.instanceID), \(v.processID), \(v.phase), \(v.status), \(v.documentTypes), \(v.updatedAt))
            \(unescaped: onConflict)
            """
    }

    static func verifications(_ connection: PostgresConnection, _ logger: Logger) async throws -> [VerificationRow] {
        try await connection.answer(
            "SELECT \(unescaped: verificationColumns) FROM identity_verification ORDER BY instance_id", logger
        ).map(verification)
    }

    static func verification(_ row: PostgresRow) throws -> VerificationRow {
        let cells = NamedCells(row)
        return VerificationRow(
            instanceID: try cells["instance_id"], processID: try cells["process_id"], phase: try cells["phase"],
            status: try cells["status"],
            documentTypes: try cells["document_types"], updatedAt: try cells["updated_at"]
        )
    }
}

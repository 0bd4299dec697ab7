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

    let records: any VerificationRecords
    let instanceID: String

    func load() async throws -> Record {
        guard let row = try await records.verification(instanceID: instanceID) else { return Record() }
        var last: LastStatus?
        if let processID = row.processID, let status = row.status.flatMap(VerificationStatus.init(rawValue:)) {
            last = LastStatus(
                processID: processID, phase: row.phase.flatMap(VerificationPhase.init(rawValue:)), status: status)
        }
        let types = row.documentTypes.map { $0.split(separator: ",").map { DocumentType(rawValue: String($0)) } }
        return Record(lastStatus: last, chosenTypes: types)
    }

    /// Keeps a successful status; the chosen types go when the status is one that ends (or
    /// has not begun) the document step.
    func saveStatus(_ last: LastStatus) async throws {
        let clearsTypes: Set<VerificationStatus> = [.failed, .rejected, .notInitialized, .accepted]
        try await change(
            .status(
                processID: last.processID, phase: last.phase?.rawValue, status: last.status.rawValue,
                clearingDocumentTypes: clearsTypes.contains(last.status)))
    }

    /// A status call failed: every later call needs a new one.
    func forgetStatus() async throws {
        try await change(.statusForgotten)
    }

    func saveChosenTypes(_ types: [DocumentType]) async throws {
        try await change(.documentTypes(types.map(\.rawValue).joined(separator: ",")))
    }

    func delete() async throws {
        try await records.deleteVerification(instanceID: instanceID)
    }

    private func change(_ change: VerificationChange) async throws {
        try await records.changeVerification(instanceID: instanceID, change, updatedAt: Date().ISO8601Format())
    }
}

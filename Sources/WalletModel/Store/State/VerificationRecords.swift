/// What identity verification keeps between calls, per instance id
/// (`identity_verification`): the last successful status and the chosen document types.
public protocol VerificationRecords: Sendable {
    func verification(instanceID: String) async throws -> VerificationRow?

    /// Applies `change` to the instance's row (made when there is none), stamped `updatedAt`.
    func changeVerification(instanceID: String, _ change: VerificationChange, updatedAt: String) async throws

    func deleteVerification(instanceID: String) async throws
}

/// An `identity_verification` row: the status columns are nil once a status call failed.
public struct VerificationRow: Sendable, Equatable {
    public var instanceID: String
    public var processID: String?
    public var phase: String?
    public var status: String?
    /// Comma-separated.
    public var documentTypes: String?
    public var updatedAt: String

    public init(
        instanceID: String, processID: String?, phase: String?, status: String?, documentTypes: String?,
        updatedAt: String
    ) {
        self.instanceID = instanceID
        self.processID = processID
        self.phase = phase
        self.status = status
        self.documentTypes = documentTypes
        self.updatedAt = updatedAt
    }
}

/// One change of an `identity_verification` row.
public enum VerificationChange: Sendable, Equatable {
    /// A successful status; the chosen types go when `clearingDocumentTypes`.
    case status(processID: String, phase: String?, status: String, clearingDocumentTypes: Bool)
    /// A status call failed: every later call needs a new one.
    case statusForgotten
    /// The document types the user chose, comma-separated.
    case documentTypes(String)
}

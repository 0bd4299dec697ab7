import ErrorCodes

/// An audit query that found nothing, or a chain that does not hold.
public struct AuditError: CodedError, Equatable {
    public let code: ErrorCode
    public let message: String

    /// No entry has this attempt id.
    public static func notFound(id: Int64) -> AuditError {
        AuditError(code: .auditNotFound, message: "no audit entry has id \(id)")
    }

    /// The hash chain breaks at row `seq`.
    public static func chainBroken(seq: Int64, reason: String) -> AuditError {
        AuditError(code: .auditChainBroken, message: "the audit chain is broken at row \(seq): \(reason)")
    }
}

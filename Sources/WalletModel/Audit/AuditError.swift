import ErrorCodes

/// An audit query that found nothing, or a chain that does not hold.
public struct AuditError: CodedError, Equatable {
    public let code: ErrorCode
    public let message: String

    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }

    /// No entry has this attempt id.
    public static func notFound(id: Int64) -> AuditError {
        AuditError(code: .auditNotFound, message: "no audit entry has id \(id)")
    }

    /// The hash chain breaks at `row`: named by its entry id (what `audit show` takes).
    public static func chainBroken(_ row: BrokenRow) -> AuditError {
        let place =
            row.entryID.map { "audit entry \($0)" + (row.event.map { " (its \($0) row)" } ?? "") }
            ?? "stored row \(row.seq)"
        return AuditError(code: .auditChainBroken, message: "the audit chain is broken at \(place): \(row.reason)")
    }
}

import ErrorCodes

/// A failure of the database layer, with a stable code for scripts and the audit.
///
/// The message never contains SQL arguments (GRDB keeps statement arguments out of
/// error descriptions by default), so it is safe to print.
public struct StorageError: CodedError, Equatable, CustomStringConvertible {
    /// The stable error code (`storage.*`).
    public let code: ErrorCode
    /// A human-readable explanation, safe to print.
    public let message: String

    /// True when retrying later may succeed (another process held the database too long).
    public var isTemporary: Bool { code == .storageBusy }
    public var description: String { message }

    /// Whether `code` says the database could not be used for a while (busy, unreachable,
    /// its connection lost): not an outcome of the request, which may be sent again.
    public static func isTransient(_ code: ErrorCode) -> Bool {
        code == .storageBusy || code == .storageUnreachable || code == .storageConnectionLost
    }

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `tokenctl db copy` found data in its target.
    public static func targetNotEmpty(
        _ place: String, passes: Int, auditRows: Int, stateTables: [String]
    ) -> StorageError {
        let state = stateTables.isEmpty ? "" : " and onboarding state (\(stateTables.joined(separator: ", ")))"
        return StorageError(
            .storageTargetNotEmpty,
            "the database \(place) already holds \(passes) pass records and \(auditRows) audit rows\(state); db copy writes only into an empty database"
        )
    }
}

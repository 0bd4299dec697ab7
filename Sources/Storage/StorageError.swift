import ErrorCodes
import GRDB

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

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `tokenctl db copy` found data in its target.
    public static func targetNotEmpty(_ place: String, passes: Int, auditRows: Int, stateTables: [String]) -> StorageError {
        let state = stateTables.isEmpty ? "" : " and onboarding state (\(stateTables.joined(separator: ", ")))"
        return StorageError(.storageTargetNotEmpty, "the database \(place) already holds \(passes) pass records and \(auditRows) audit rows\(state); db copy writes only into an empty database")
    }

    static func busy(path: String, timeoutMilliseconds: Int) -> StorageError {
        StorageError(.storageBusy, "the database \(path) stayed locked by another process for more than \(timeoutMilliseconds) ms (database.busy-timeout-ms); try again later")
    }

    static func directoryMissing(_ directory: String) -> StorageError {
        StorageError(.storageDirectoryMissing, "the database directory \(directory) does not exist; create it or point database.path elsewhere")
    }

    static func readOnly(path: String) -> StorageError {
        StorageError(.storageReadOnly, "the database \(path) is read-only for this user; tokenctl needs to write the file and, for its -wal and -shm files, its directory")
    }

    static func unreadable(path: String) -> StorageError {
        StorageError(.storageIO, "cannot read the database \(path): permission denied; reading commands need read access to the file")
    }

    static func io(path: String, _ detail: String) -> StorageError {
        StorageError(.storageIO, "cannot use the database \(path): \(detail)")
    }

    /// Classifies a GRDB error. Errors that belong to the caller's domain (constraints)
    /// return nil so the caller can explain them in its own terms.
    static func classify(_ error: DatabaseError, path: String, busyTimeoutMilliseconds: Int) -> StorageError? {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return .busy(path: path, timeoutMilliseconds: busyTimeoutMilliseconds)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return StorageError(.storageCorrupt, "the database \(path) is damaged or is not a tokenctl database (\(error.resultCode)); restore it from a backup")
        case .SQLITE_READONLY:
            return .readOnly(path: path)
        case .SQLITE_CONSTRAINT:
            return nil
        default:
            return .io(path: path, error.message ?? "\(error.resultCode)")
        }
    }
}

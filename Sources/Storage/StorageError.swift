import GRDB

/// A failure of the database layer, with a stable code for scripts and the audit.
///
/// The message never contains SQL arguments (GRDB keeps statement arguments out of
/// error descriptions by default), so it is safe to print.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: String, Sendable {
        case busy = "storage.busy"
        case directoryMissing = "storage.directoryMissing"
        case io = "storage.io"
        case corrupt = "storage.corrupt"
        case readOnly = "storage.readOnly"
    }

    private let kind: Kind
    /// A human-readable explanation, safe to print.
    public let message: String

    /// The stable error code, without interpolated values.
    public var code: String { kind.rawValue }
    /// True when retrying later may succeed (another process held the database too long).
    public var isTemporary: Bool { kind == .busy }
    public var description: String { message }

    private init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    static func busy(path: String, timeoutMilliseconds: Int) -> StorageError {
        StorageError(.busy, "the database \(path) stayed locked by another process for more than \(timeoutMilliseconds) ms (database.busy-timeout-ms); try again later")
    }

    static func directoryMissing(_ directory: String) -> StorageError {
        StorageError(.directoryMissing, "the database directory \(directory) does not exist; create it or point database.path elsewhere")
    }

    static func readOnly(path: String) -> StorageError {
        StorageError(.readOnly, "the database \(path) is read-only for this user; tokenctl needs to write the file and, for its -wal and -shm files, its directory")
    }

    static func io(path: String, _ detail: String) -> StorageError {
        StorageError(.io, "cannot use the database \(path): \(detail)")
    }

    /// Classifies a GRDB error. Errors that belong to the caller's domain (constraints)
    /// return nil so the caller can explain them in its own terms.
    static func classify(_ error: DatabaseError, path: String, busyTimeoutMilliseconds: Int) -> StorageError? {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return .busy(path: path, timeoutMilliseconds: busyTimeoutMilliseconds)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return StorageError(.corrupt, "the database \(path) is damaged or is not a tokenctl database (\(error.resultCode)); restore it from a backup")
        case .SQLITE_READONLY:
            return .readOnly(path: path)
        case .SQLITE_CONSTRAINT:
            return nil
        default:
            return .io(path: path, error.message ?? "\(error.resultCode)")
        }
    }
}

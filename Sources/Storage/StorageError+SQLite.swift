import GRDB
import WalletModel

/// The SQLite file's failures.
extension StorageError {
    static func busy(path: String, timeoutMilliseconds: Int) -> StorageError {
        StorageError(
            .storageBusy,
            "the database \(path) stayed locked by another process for more than \(timeoutMilliseconds) ms (database.busy-timeout-ms); try again later"
        )
    }

    static func directoryMissing(_ directory: String) -> StorageError {
        StorageError(
            .storageDirectoryMissing,
            "the database directory \(directory) does not exist; create it or point database.path elsewhere")
    }

    /// root about to create a database in a directory another user owns (a package host's
    /// /var/lib/tokenctl): the file would be root's, 0600, and that user's service could not
    /// read it.
    static func othersDirectory(path: String, directory: String, owner: String) -> StorageError {
        StorageError(
            .storageReadOnly,
            "\(directory) belongs to \(owner), and a database root creates there (\(path)) would be root's alone, which \(owner)'s service cannot open; run the command as that user (sudo -u \(owner) tokenctl …), or name another --database"
        )
    }

    static func readOnly(path: String) -> StorageError {
        StorageError(
            .storageReadOnly,
            "the database \(path) is read-only for this user; tokenctl needs to write the file and, for its -wal and -shm files, its directory"
        )
    }

    static func unreadable(path: String) -> StorageError {
        StorageError(
            .storageIO,
            "cannot read the database \(path): permission denied; reading commands need read access to the file")
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
            return StorageError(
                .storageCorrupt,
                "the database \(path) is damaged or is not a tokenctl database (\(error.resultCode)); restore it from a backup"
            )
        case .SQLITE_READONLY:
            return .readOnly(path: path)
        case .SQLITE_CONSTRAINT:
            return nil
        default:
            return .io(path: path, error.message ?? "\(error.resultCode)")
        }
    }
}

import ErrorCodes
import Glibc

/// The exclusive lock beside the service's socket (`PATH.lock`, holding the holder's pid):
/// taken before the socket is bound, so a second `tokenctl serve` on the same path exits
/// naming the holder and never unlinks a live socket, while a socket file left by a
/// server that died (no holder) is replaced.
final class SocketLock: Sendable {
    let socketPath: String
    private let descriptor: CInt

    /// Creates the socket's directory (0700) when missing, takes the lock, records this
    /// process's pid, and removes a stale socket file.
    /// - Throws: ``ServiceError`` `service.alreadyRunning` naming the holder's pid, or
    ///   `service.cannotListen` when the directory or lock cannot be made.
    init(socketPath: String) throws(ServiceError) {
        self.socketPath = socketPath
        try Self.makeDirectory(of: socketPath)
        let lockPath = socketPath + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ServiceError(.serviceCannotListen, "cannot open the lock file \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.readPID(descriptor)
            close(descriptor)
            throw ServiceError(.serviceAlreadyRunning, "another tokenctl serve\(holder.map { " (pid \($0))" } ?? "") is listening on \(socketPath); stop it first, or give this one another --socket")
        }
        self.descriptor = descriptor
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        // Held by no live server: whatever is at the path is left over.
        if unlink(socketPath) != 0 && errno != ENOENT {
            throw ServiceError(.serviceCannotListen, "cannot remove the stale socket \(socketPath): \(String(cString: strerror(errno)))")
        }
    }

    /// Removes the socket (a clean exit) and gives the lock up.
    func release(unlinkingSocket: Bool) {
        if unlinkingSocket { unlink(socketPath) }
        _ = ftruncate(descriptor, 0)
        close(descriptor)
    }

    private static func readPID(_ descriptor: CInt) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).filter(\.isNumber))
    }

    /// The socket's directory, made 0700 (with its missing parents) when it does not exist.
    private static func makeDirectory(of path: String) throws(ServiceError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let directory = String(path[..<slash])
        var info = stat()
        if stat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw ServiceError(.serviceCannotListen, "\(directory) is not a directory") }
            return
        }
        try makeDirectory(of: directory)
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw ServiceError(.serviceCannotListen, "cannot create the socket's directory \(directory): \(String(cString: strerror(errno)))")
        }
    }
}

/// Why the service cannot start or listen.
public struct ServiceError: CodedError {
    public let code: ErrorCode
    public let message: String

    init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}

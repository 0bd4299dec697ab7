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
        var descriptor: CInt = -1
        while descriptor < 0 {
            let opened = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard opened >= 0 else {
                throw ServiceError(
                    .serviceCannotListen, "cannot open the lock file \(lockPath): \(SystemError.text())")
            }
            guard flock(opened, LOCK_EX | LOCK_NB) == 0 else {
                let holder = Self.readPID(opened)
                close(opened)
                throw ServiceError(
                    .serviceAlreadyRunning,
                    "another tokenctl serve\(holder.map { " (pid \($0))" } ?? "") is listening on \(socketPath); stop it first, or give this one another --socket"
                )
            }
            // The holder removes the file as it exits: a lock on a file no longer at the
            // path guards nothing; open the path again.
            if Self.isStillAt(lockPath, opened) {
                descriptor = opened
            } else {
                close(opened)
            }
        }
        // A socket on which a process still accepts connections is never replaced, whoever
        // holds it (systemd's tokenctl.socket, or a server started without this lock).
        if Self.accepts(socketPath) {
            // The lock is this process's (no other tokenctl serve holds it): its file goes too.
            unlink(lockPath)
            close(descriptor)
            throw ServiceError(
                .serviceAlreadyRunning,
                "a process still accepts connections on \(socketPath) (systemd's tokenctl.socket, or another server); stop it first (systemctl stop tokenctl.socket tokenctl.service), or give this one another --socket"
            )
        }
        self.descriptor = descriptor
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        // Held by no live server: whatever is at the path is left over.
        if unlink(socketPath) != 0 && errno != ENOENT {
            throw ServiceError(
                .serviceCannotListen,
                "cannot remove the stale socket \(socketPath): \(SystemError.text())")
        }
    }

    /// Removes the socket and the lock file (a clean exit) and gives the lock up.
    func release(unlinkingSocket: Bool) {
        if unlinkingSocket {
            unlink(socketPath)
            unlink(socketPath + ".lock")
        }
        _ = ftruncate(descriptor, 0)
        close(descriptor)
    }

    /// Whether `path` still names the file open on `descriptor`.
    private static func isStillAt(_ path: String, _ descriptor: CInt) -> Bool {
        var atPath = stat(), open = stat()
        guard stat(path, &atPath) == 0, fstat(descriptor, &open) == 0 else { return false }
        return atPath.st_dev == open.st_dev && atPath.st_ino == open.st_ino
    }

    /// Whether a process accepts connections on the Unix socket at `path`.
    static func accepts(_ path: String) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return status == 0
    }

    private static func readPID(_ descriptor: CInt) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).filter(\.isNumber))
    }

    /// The socket's directory, made 0700 when it does not exist; its parent must exist (a
    /// mistyped path is refused, not created).
    private static func makeDirectory(of path: String) throws(ServiceError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let directory = String(path[..<slash])
        var info = stat()
        if stat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw ServiceError(.serviceCannotListen, "\(directory) is not a directory")
            }
            return
        }
        if let parentSlash = directory.lastIndex(of: "/"), parentSlash != directory.startIndex {
            let parent = String(directory[..<parentSlash])
            guard stat(parent, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw ServiceError(
                    .serviceCannotListen,
                    "cannot create the socket's directory \(directory): \(parent) does not exist; create it first, or give another --socket"
                )
            }
        }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw ServiceError(
                .serviceCannotListen,
                "cannot create the socket's directory \(directory): \(SystemError.text())")
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

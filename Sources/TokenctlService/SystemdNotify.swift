import Glibc

/// systemd's notify protocol (sd_notify(3)): a datagram of `KEY=VALUE` lines to the
/// socket `$NOTIFY_SOCKET` names (a path, or `@name` in the abstract namespace). Without
/// the variable nothing is sent.
struct SystemdNotify: Sendable {
    let socketPath: String?

    init(environment: [String: String]) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Sends `state` (e.g. `READY=1`); false when it could not be delivered.
    @discardableResult
    func send(_ state: String) -> Bool {
        guard let socketPath, socketPath.hasPrefix("/") || socketPath.hasPrefix("@") else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1))
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                message.withUnsafeBytes {
                    sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length)
                }
            }
        }
        return sent == message.count
    }
}

/// systemd's socket activation (sd_listen_fds(3)): the listening sockets passed as
/// descriptors 3, 4, … when `$LISTEN_PID` is this process.
enum SocketActivation {
    static let firstDescriptor: CInt = 3

    /// The passed descriptors, or none; the variables are consumed either way so that a
    /// child process does not take them for its own.
    static func descriptors(environment: [String: String]) -> [CInt] {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap(Int32.init), count > 0, count < 1024
        else { return [] }
        return (0..<count).map { descriptor in
            let fd = firstDescriptor + descriptor
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            return fd
        }
    }

    /// Whether a passed descriptor is a Unix socket (its path then is systemd's, not ours).
    static func isUnixSocket(_ descriptor: CInt) -> Bool {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return status == 0 && address.ss_family == sa_family_t(AF_UNIX)
    }
}

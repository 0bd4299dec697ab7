import Glibc

/// Identifies a process across PID reuse: its PID and its start time (clock ticks since
/// boot, field 22 of /proc/PID/stat).
public struct ProcessIdentity: Sendable, Equatable {
    public var pid: Int32
    public var start: String

    public init(pid: Int32, start: String) {
        self.pid = pid
        self.start = start
    }

    public static let current = ProcessIdentity(pid: getpid(), start: startTime(of: getpid()) ?? "")

    /// Whether this process still runs (same PID and the same start time).
    public var isAlive: Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        return Self.startTime(of: pid) == start
    }

    public static func startTime(of pid: Int32) -> String? {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 0 else { return nil }
        // The command name (field 2) may hold spaces; fields after its ")" are plain.
        guard let close = bytes[..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)..<count].split(separator: UInt8(ascii: " "))
        // fields[0] is field 3 (state), so field 22 is fields[19].
        guard fields.count > 19 else { return nil }
        return String(decoding: fields[19], as: UTF8.self)
    }
}

extension ProcessIdentity {
    /// This machine's host name (gethostname), or nil when it has none.
    public static var hostName: String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }
}

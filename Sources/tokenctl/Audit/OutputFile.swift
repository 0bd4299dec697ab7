import CommandLine
import Glibc
import WalletModel

/// A file a command writes: made with `mode` (a new key is never written over an old one:
/// `exclusive`), written whole.
enum OutputFile {
    static func write(_ bytes: [UInt8], to path: String, option: String, mode: mode_t = 0o644, exclusive: Bool = false) throws {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC)
        let descriptor = open(path, flags, mode)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "exists; a key is never written over (the checkpoints it signed would lose their key): name a new file"
                : "cannot be written: \(String(cString: strerror(errno)))"
            throw UsageError(message: "\(option) \(SafeText.escaped(path)) \(reason)")
        }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw UsageError(message: "\(option) \(SafeText.escaped(path)) cannot be written: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }
}

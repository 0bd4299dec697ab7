import ErrorCodes
import Glibc
import TextFormats
import TokenctlCommandLine
import WalletModel

/// A file a command writes: made with `mode` (a new key is never written over an old one:
/// `exclusive`), written whole.
enum OutputFile {
    static func write(
        _ bytes: [UInt8], to path: String, option: String, mode: mode_t = 0o644, exclusive: Bool = false
    ) throws {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC)
        let descriptor = open(path, flags, mode)
        guard descriptor >= 0 else {
            let reason =
                errno == EEXIST
                ? "exists; a key is never written over (the checkpoints it signed would lose their key): name a new file"
                : "cannot be written: \(SystemError.text())"
            throw UsageError(message: "\(option) \(SafeText.escaped(path)) \(reason)")
        }
        defer { close(descriptor) }
        try write(bytes, to: descriptor, path: path, option: option)
    }

    /// Checks, before anything is printed, that `path` can be written: an existing file
    /// writable, or a new one's directory (a path that cannot be is named before the output it
    /// would go with, and no empty file is left).
    static func checkWritable(_ path: String, option: String) throws {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        var status = stat()
        let exists = stat(path, &status) == 0
        if exists, (status.st_mode & S_IFMT) == S_IFDIR {
            throw UsageError(message: "\(option) \(SafeText.escaped(path)) is a directory: name a file")
        }
        guard access(exists ? path : (directory.isEmpty ? "/" : directory), W_OK) == 0 else {
            throw UsageError(
                message: "\(option) \(SafeText.escaped(path)) cannot be written: \(SystemError.text())")
        }
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32, path: String, option: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                throw UsageError(
                    message:
                        "\(option) \(SafeText.escaped(path)) cannot be written: \(SystemError.text())")
            }
            offset += written
        }
    }
}

import Foundation

/// A fresh directory under the system temporary directory, removed when released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init() {
        let template = NSTemporaryDirectory() + "tokenctl-test-XXXXXX"
        var bytes = Array(template.utf8CString)
        path = bytes.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    public func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The permission bits of a file, or nil when it does not exist.
public func fileMode(_ path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int(info.st_mode & 0o777)
}

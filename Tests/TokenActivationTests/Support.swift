import Foundation

/// A fresh directory under the system temporary directory, removed when released.
final class TemporaryDirectory {
    let path: String

    init() {
        let template = NSTemporaryDirectory() + "tokenctl-test-XXXXXX"
        var bytes = Array(template.utf8CString)
        path = bytes.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

func fileMode(_ path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int(info.st_mode & 0o777)
}

/// The repository root, for files such as `Config/tokenctl.json`.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// A descriptor reading `bytes` (through a temporary file, unlinked at once).
func descriptor(reading bytes: [UInt8]) -> Int32 {
    let directory = TemporaryDirectory()
    let path = directory.file("input")
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    return open(path, O_RDONLY)
}

import Foundation

/// The repository root, for files such as `Config/tokenctl.json`.
public let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// A descriptor reading `bytes` (through a temporary file, unlinked at once).
public func descriptor(reading bytes: [UInt8]) -> Int32 {
    let directory = TemporaryDirectory()
    let path = directory.file("input")
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    return open(path, O_RDONLY)
}

import Foundation
import Glibc

/// Runs a program to its end and returns its exit status and output (standard output and
/// error together, trimmed): an independent client such as psql or sqlite3, started with
/// ``SpawnedProcess``.
/// - Parameter input: its standard input (written from another thread); nothing by default.
public func runProgram(
    _ path: String, _ arguments: [String], environment: [String: String]? = nil, input data: Data? = nil
) throws -> (status: Int32, output: String) {
    var output: [Int32] = [-1, -1]
    guard pipe(&output) == 0 else { throw POSIXError(.EMFILE) }
    for end in output { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    var feed: [Int32] = [-1, -1]
    if data != nil {
        guard pipe(&feed) == 0 else { throw POSIXError(.EMFILE) }
        for end in feed { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    }
    let input = data == nil ? open("/dev/null", O_RDONLY | O_CLOEXEC) : feed[0]
    defer { close(input) }
    let process: SpawnedProcess
    do {
        process = try SpawnedProcess(
            executable: path, arguments: arguments, environment: environment ?? ProcessInfo.processInfo.environment,
            directory: nil,
            standardInput: input, standardOutput: output[1], standardError: output[1]
        )
    } catch {
        close(output[0])
        close(output[1])
        throw error
    }
    close(output[1])
    if let data {
        let writer = feed[1]
        Thread.detachNewThread {
            let handle = FileHandle(fileDescriptor: writer, closeOnDealloc: true)
            try? handle.write(contentsOf: data)
            try? handle.close()
        }
    }
    let answer = FileHandle(fileDescriptor: output[0], closeOnDealloc: true).readDataToEndOfFile()
    return (
        process.terminationStatus,
        String(decoding: answer, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    )
}

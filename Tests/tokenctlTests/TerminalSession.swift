import Foundation
import Synchronization
import TestSupport
import Testing

/// The `tokenctl` binary on a pseudo-terminal (`script`), typed into like a user: what it
/// prints is read as it comes, so a test can wait for a prompt before answering it.
final class TerminalSession: Sendable {
    private let process: SpawnedProcess
    private let input = Pipe()
    private let output = Pipe()
    private let printed = Mutex("")

    init(_ cli: CLI, _ arguments: [String]) throws {
        let command = ([CLI.binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        process = try SpawnedProcess(
            executable: "/usr/bin/script", arguments: ["-qec", command, "/dev/null"],
            environment: cli.environment.merging(["TERM": "dumb", "SHELL": "/bin/sh"]) { $1 }, directory: nil,
            standardInput: input.fileHandleForReading.fileDescriptor,
            standardOutput: output.fileHandleForWriting.fileDescriptor, standardError: output.fileHandleForWriting.fileDescriptor
        )
        // The child's ends are the child's: the output ends when it does.
        try? input.fileHandleForReading.close()
        try? output.fileHandleForWriting.close()
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            if !data.isEmpty { self?.printed.withLock { $0 += String(decoding: data, as: UTF8.self) } }
        }
    }

    var text: String { printed.withLock { $0 } }

    /// Waits until the output holds `expected` `count` times.
    func waitFor(_ expected: String, count: Int = 1, seconds: Double = 20) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while text.components(separatedBy: expected).count - 1 < count {
            guard Date() < deadline, process.isRunning || text.contains(expected) else {
                Issue.record("no \"\(expected)\" (×\(count)) on the terminal; it shows:\n\(text)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Types `text` (a line needs its "\n"; Ctrl-C is "\u{03}").
    func type(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    /// The exit status, once it ended.
    func finish(seconds: Double = 20) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            guard Date() < deadline else {
                process.terminate()
                Issue.record("still running; the terminal shows:\n\(text)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }
}

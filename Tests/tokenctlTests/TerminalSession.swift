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
    /// When each read came, and how many bytes the output held after it: read on the reader's
    /// own thread, so a busy machine's late test task does not move the times.
    private let arrivals = Mutex<[(at: ContinuousClock.Instant, length: Int)]>([])

    init(_ cli: CLI, _ arguments: [String]) throws {
        let command = ([CLI.binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            .joined(separator: " ")
        process = try SpawnedProcess(
            executable: "/usr/bin/script", arguments: ["-qec", command, "/dev/null"],
            environment: cli.environment.merging(["TERM": "dumb", "SHELL": "/bin/sh"]) { $1 }, directory: nil,
            standardInput: input.fileHandleForReading.fileDescriptor,
            standardOutput: output.fileHandleForWriting.fileDescriptor,
            standardError: output.fileHandleForWriting.fileDescriptor
        )
        // The child's ends are the child's: the output ends when it does.
        try? input.fileHandleForReading.close()
        try? output.fileHandleForWriting.close()
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard !data.isEmpty, let self else { return }
            let now = ContinuousClock.now
            let length = printed.withLock { printed in
                printed += String(decoding: data, as: UTF8.self)
                return printed.utf8.count
            }
            arrivals.withLock { $0.append((now, length)) }
        }
    }

    var text: String { printed.withLock { $0 } }

    /// When the end of `expected`'s first occurrence reached the terminal's reader.
    func arrival(of expected: String) -> ContinuousClock.Instant? {
        guard let range = text.range(of: expected) else { return nil }
        let end = text.utf8.distance(
            from: text.utf8.startIndex, to: range.upperBound.samePosition(in: text.utf8) ?? text.utf8.endIndex)
        return arrivals.withLock { $0.first { $0.length >= end }?.at }
    }

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

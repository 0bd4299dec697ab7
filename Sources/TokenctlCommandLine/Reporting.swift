import ArgumentParser
import ErrorCodes
import Glibc
import OnboardingCore
import Synchronization
import TextFormats
import TokenActivation
import TokenctlApp
import WalletModel

/// Runs a command body and turns a failure into the documented output and exit code:
/// the human message on standard error and, with `--json`, `{"error": {…}}` on stdout.
public func reportingErrors(json: Bool, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as UsageError {
        // Reported as every usage error is, with the command's usage under it (Tokenctl.main).
        throw ValidationError(error.message)
    } catch let error as any CodedError {
        Output.flush()
        if json {
            Output.line(JSONObject(["error": .object(errorObject(error))]).text)
            Output.flush()
        }
        Output.error("\(NextStepText.message(error)) (\(error.code.rawValue))")
        throw ExitCode(error.exitStatus.rawValue)
    }
}

/// Input a command cannot use, found after argument parsing (exit 64).
public struct UsageError: CodedError {
    public let code = ErrorCode.usageInvalid
    public let message: String

    public init(message: String) {
        self.message = message
    }
}

/// The `--json` form of an argument error (ArgumentParser prints the human form).
public func reportUsageError(_ message: String) {
    Output.line(JSONObject(["error": .object(.error(code: .usageInvalid, message: message))]).text)
    Output.flush()
}

public func errorObject(_ error: any CodedError) -> JSONObject {
    .error(code: error.code, message: NextStepText.message(error), attemptsLeft: (error as? LoginError)?.attemptsLeft)
}

/// Buffered standard output, and messages on standard error.
public enum Output {
    private static let buffer = OutputBuffer(descriptor: STDOUT_FILENO)

    public static func line(_ text: String) {
        buffer.append(text)
        buffer.append("\n")
    }

    public static func write(_ text: String) {
        buffer.append(text)
    }

    public static func flush() {
        buffer.flush()
    }

    /// The JSON object when there is one (`--json`), the text lines otherwise.
    public static func print(json: JSONObject?, lines: @autoclosure () -> [String]) {
        if let json {
            line(json.text)
        } else {
            for text in lines() { line(text) }
        }
    }

    public static func error(_ text: String) {
        writeAll(STDERR_FILENO, LogOutput.errorLine("tokenctl: \(text)"))
    }

    public static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}

/// Writes every byte of `text` to a descriptor, retrying short writes.
public func writeAll(_ descriptor: Int32, _ text: String) {
    var text = text
    text.withUTF8 { writeAll(descriptor, UnsafeRawBufferPointer($0)) }
}

public func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < bytes.count {
        let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return
        }
        offset += written
    }
}

/// A 64 KiB write buffer over a file descriptor, flushed when full and at exit. Any
/// thread may write (the sandbox prints from its event loop): appends and flushes take
/// the buffer's lock, so lines never interleave.
public final class OutputBuffer: Sendable {
    private let descriptor: Int32
    private let pending = Mutex<[UInt8]>([])
    private static let capacity = 1 << 16

    public init(descriptor: Int32) {
        self.descriptor = descriptor
        pending.withLock { $0.reserveCapacity(Self.capacity) }
        atexit { Output.flush() }
    }

    public func append(_ text: String) {
        pending.withLock { bytes in
            bytes.append(contentsOf: text.utf8)
            if bytes.count >= Self.capacity { Self.write(&bytes, to: descriptor) }
        }
    }

    public func flush() {
        pending.withLock { Self.write(&$0, to: descriptor) }
    }

    private static func write(_ bytes: inout [UInt8], to descriptor: Int32) {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { writeAll(descriptor, $0) }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Every usage error in one format, for both executables: `tokenctl: message (usage.invalid)`
/// on standard error, the command's usage under it and where its help is, and with `--json`
/// `{"error": …}` on stdout. Exits 64.
public func exitWithUsageError(_ message: String, usage: String, command: String, json: Bool) -> Never {
    let text = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
    if json { reportUsageError(text) }
    Output.flush()
    writeAll(STDERR_FILENO, LogOutput.usageLines(text, usage: usage, command: command))
    Glibc.exit(ExitStatus.usage.rawValue)
}

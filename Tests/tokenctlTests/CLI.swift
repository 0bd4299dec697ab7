import Foundation
import TestSupport
import Testing

/// What one run of the `tokenctl` binary did.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String

    /// stdout parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8))
    }

    func jsonObject() throws -> [String: Any] {
        try #require(try json() as? [String: Any], "stdout: \(stdout)")
    }
}

/// Runs the built `tokenctl` binary (next to the test bundle) in a clean environment:
/// HOME is the test's directory, so no user configuration or database leaks in.
struct CLI {
    /// `TOKENCTL_TEST_BINARY` (another build to try), else the build next to the test
    /// bundle: with `make test`, the executable as the package ships it.
    static let binary: String = {
        if let binary = ProcessInfo.processInfo.environment["TOKENCTL_TEST_BINARY"], !binary.isEmpty { return binary }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("tokenctl").path
    }()

    let directory: TemporaryDirectory
    var environment: [String: String]

    init(directory: TemporaryDirectory = TemporaryDirectory()) {
        self.directory = directory
        environment = [
            "HOME": directory.path,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "TOKENCTL_DATABASE_PATH": directory.file("tokenctl.sqlite"),
        ]
    }

    var databasePath: String { environment["TOKENCTL_DATABASE_PATH"]! }

    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:]) throws -> CLIResult
    {
        let process = try start(arguments, stdin: stdin, environment: extra)
        return try process.finish()
    }

    @discardableResult
    func run(_ arguments: String..., stdin: String? = nil) throws -> CLIResult {
        try run(arguments, stdin: stdin)
    }

    /// Runs another program (a script that calls tokenctl) in the same environment.
    func run(executable: String, _ arguments: [String], stdin: String? = nil) throws -> CLIResult {
        try start(arguments, stdin: stdin, executable: executable).finish()
    }

    func start(
        _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:],
        executable: String = CLI.binary
    ) throws -> RunningCLI {
        let id = UUID().uuidString
        let outPath = directory.file("\(id).out"), errPath = directory.file("\(id).err")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let output = open(outPath, O_WRONLY | O_CLOEXEC), errors = open(errPath, O_WRONLY | O_CLOEXEC)
        var input: [Int32] = [-1, -1]
        guard output >= 0, errors >= 0, pipe(&input) == 0 else { throw POSIXError(.EMFILE) }
        for end in input { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer {
            close(output)
            close(errors)
            close(input[0])
        }
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess(
                executable: executable, arguments: arguments, environment: environment.merging(extra) { $1 },
                directory: directory.path,
                standardInput: input[0], standardOutput: output, standardError: errors
            )
        } catch {
            close(input[1])
            throw error
        }
        let writer = FileHandle(fileDescriptor: input[1], closeOnDealloc: true)
        if let stdin { writer.write(Data(stdin.utf8)) }
        try writer.close()
        return RunningCLI(process: process, outPath: outPath, errPath: errPath)
    }

    /// Writes a file in the test directory and returns its path.
    func write(_ name: String, _ contents: String) -> String {
        write(name, Data(contents.utf8))
    }

    func write(_ name: String, _ contents: Data) -> String {
        let path = directory.file(name)
        _ = FileManager.default.createFile(atPath: path, contents: contents)
        return path
    }
}

struct RunningCLI {
    let process: SpawnedProcess
    let outPath: String
    let errPath: String

    func finish() throws -> CLIResult {
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus,
            stdout: try String(contentsOfFile: outPath, encoding: .utf8),
            stderr: try String(contentsOfFile: errPath, encoding: .utf8)
        )
    }
}

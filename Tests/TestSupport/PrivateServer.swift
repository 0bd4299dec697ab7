import Foundation
import Glibc
import Testing

/// A PostgreSQL server of one test's own (scripts/test-postgres.sh in its own directory).
public struct PrivateServer: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// Runs the script with posix_spawn and waitpid. Foundation's Process learns that a
    /// child ended when a socket the child inherits closes; the server the script starts
    /// inherits it too, so Process would wait for the server to stop.
    public func run(_ arguments: String...) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "test-postgres-\(UUID().uuidString).out"
        ).path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let script = repositoryRoot + "/scripts/test-postgres.sh"
        let command = "exec \(script) \(arguments.joined(separator: " ")) > \(outputPath) < /dev/null"
        let environment = ProcessInfo.processInfo.environment.merging(["TEST_POSTGRES_DIR": directory]) { $1 }.map {
            "\($0)=\($1)"
        }
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        try #require(posix_spawn(&pid, "/bin/sh", nil, nil, argv, envp) == 0, "cannot start test-postgres.sh")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        try #require(status == 0, "test-postgres.sh \(arguments) failed")
        return try String(contentsOfFile: outputPath, encoding: .utf8)
    }
}

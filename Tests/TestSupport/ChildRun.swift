import Foundation
import Glibc

/// Runs one test of this bundle again in a child process, for a check that the process
/// stops (a programming error's trap): the test, finding ``variable`` set to its name, does
/// what must stop it. swift-testing's exit tests would do this too, but their monitor waits
/// for any child of the bundle (`waitid(P_ALL)`), and spins without end on a child another
/// test has started and not yet reaped; this waits for its own child only.
public enum ChildRun {
    public static let variable = "TOKENCTL_TEST_CHILD"

    /// Whether this process is the child run for `test`.
    public static func isChild(_ test: String) -> Bool {
        ProcessInfo.processInfo.environment[variable] == test
    }

    /// Runs `test` (a test function's name, as `--filter` matches it) in a child copy of
    /// the bundle, and tells how it ended.
    /// - Returns: whether a signal ended it, and its exit status or signal.
    public static func run(test: String) throws -> (signalled: Bool, status: Int32) {
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = test
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(null) }
        let bundle = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let child = try SpawnedProcess(
            executable: bundle, arguments: ["--testing-library", "swift-testing", "--filter", test],
            environment: environment, directory: nil, standardInput: null, standardOutput: null, standardError: null)
        return (child.endedBySignal, child.terminationStatus)
    }
}

import Foundation
import Glibc

/// A child process started with posix_spawn, for tests that start many: Foundation's
/// `Process.run()` on this toolchain reads past the end of `/proc/self/fd` directory entries
/// and crashes now and then (fixed in later swift-corelibs-foundation). Descriptors above 2
/// are closed in the child, as `Process` does; standard input, output and error are the
/// given descriptors.
public final class SpawnedProcess: @unchecked Sendable {
    public let processIdentifier: Int32
    private let lock = NSLock()
    private var status: Int32?

    /// - Parameters:
    ///   - standardInput, standardOutput, standardError: descriptors the child gets as 0, 1, 2.
    public init(
        executable: String, arguments: [String], environment: [String: String], directory: String?,
        standardInput: Int32, standardOutput: Int32, standardError: Int32
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        guard let closeFrom = Self.addCloseFrom else { throw POSIXError(.ENOSYS) }
        _ = closeFrom(&actions, 3)
        if let directory, let changeDirectory = Self.addChangeDirectory {
            _ = directory.withCString { changeDirectory(&actions, $0) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        processIdentifier = pid
    }

    /// Whether it still runs (reaping it when it has ended).
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        if status != nil { return false }
        var raw: Int32 = 0
        let reaped = waitpid(processIdentifier, &raw, WNOHANG)
        guard reaped == processIdentifier else { return true }
        status = raw
        return false
    }

    public func waitUntilExit() {
        while isRunning { usleep(2_000) }
    }

    /// The exit status, or the signal that ended it (as `Process` reports them).
    public var terminationStatus: Int32 {
        waitUntilExit()
        let raw = lock.withLock { status ?? 0 }
        let signal = raw & 0x7F
        return signal == 0 ? (raw >> 8) & 0xFF : signal
    }

    /// Whether a signal ended it.
    public var endedBySignal: Bool {
        waitUntilExit()
        return lock.withLock { (status ?? 0) & 0x7F } != 0
    }

    public func terminate() {
        kill(processIdentifier, SIGTERM)
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np"
    )
    .map { unsafeBitCast($0, to: AddCloseFrom.self) }
    private static let addChangeDirectory: AddChangeDirectory? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np"
    )
    .map { unsafeBitCast($0, to: AddChangeDirectory.self) }
}

extension SpawnedProcess {
    /// Starts `executable` with standard input from /dev/null, standard output on a pipe
    /// whose reading end is returned, and standard error to `errorFile` (else /dev/null):
    /// a server a test reads the first lines of.
    public static func reading(
        _ executable: String, _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        directory: String? = nil, errorFile: String? = nil
    ) throws -> (SpawnedProcess, FileHandle) {
        var output: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else { throw POSIXError(.EMFILE) }
        for end in output { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let error =
            errorFile.map { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
            ?? open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer {
            close(input)
            close(error)
            close(output[1])
        }
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess(
                executable: executable, arguments: arguments, environment: environment, directory: directory,
                standardInput: input, standardOutput: output[1], standardError: error
            )
        } catch {
            close(output[0])
            throw error
        }
        return (process, FileHandle(fileDescriptor: output[0], closeOnDealloc: true))
    }
}

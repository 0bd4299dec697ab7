import ErrorCodes
import Glibc
import OnboardingCore
import Synchronization
import WalletModel

/// What a batch did, by outcome and by error code.
public struct BatchSummary: Sendable, Equatable {
    public var lines = 0
    /// The batch stopped reading early because ``BatchStop`` was requested: lines after the
    /// last one counted were not read.
    public var stoppedEarly = false
    /// Lines that warned (an unfinished attempt closed as UNKNOWN before sending again).
    public var warnings = 0
    public var outcomes: [Outcome: Int] = [:]
    public var errors: [ErrorCode: Int] = [:]
    /// The step the first line refused with each code named (a gate's: log in, finish the
    /// user activation), as a single activation names it.
    public var nextSteps: [ErrorCode: NextStep] = [:]
    /// Database transactions written, and the activation steps they carried.
    public var transactions = 0
    public var committedSteps = 0
}

extension Activator {
    /// The most lines read ahead of the oldest unfinished one, per worker: output stays in
    /// input order while memory stays bounded whatever the input size.
    static let reorderWindowPerWorker = 64
    /// Longer lines are reported as `deeplink.tooLong` (the parser's limit is 2048 bytes).
    static let batchLineLimit = DeeplinkParser.maximumLength + 1

    /// Activates one deeplink per line of `input`, `concurrency` at a time over reused
    /// keep-alive connections, and hands each result to `emit` in input order. Blank lines
    /// are skipped; a bad line is a result like any other and does not stop the batch.
    /// Every guarantee of a single activation holds per line.
    ///
    /// - Parameters:
    ///   - progress: called as lines finish with the bytes read and the input size when known.
    ///   - dryRun: resolve every line and say what it would send; send, audit and change nothing.
    ///   - stop: once requested, no further line is read or started; the lines in flight
    ///     finish and are emitted, and the summary says the batch stopped early.
    ///   - emit: receives (line number, result), in input order, as soon as it is in order.
    /// - Throws: ``BatchInputError`` when the input cannot be opened, or a ``StorageError``
    ///   when the database cannot be opened.
    public func activateBatch(
        from input: ImportInput, concurrency: Int,
        progress: (@Sendable (_ bytesRead: Int, _ totalBytes: Int?) -> Void)? = nil,
        dryRun: Bool = false,
        stop: BatchStop = BatchStop(),
        emit: (_ line: Int, _ result: ActivationResult) -> Void
    ) async throws -> BatchSummary {
        let (descriptor, totalBytes): (Int32, Int?)
        do {
            (descriptor, totalBytes) = try input.open()
        } catch {
            throw BatchInputError(message: "cannot use the batch input: \(error.detail); nothing was activated")
        }
        defer { if case .file = input { _ = Glibc.close(descriptor) } }
        let workers = max(1, concurrency)
        AllocatorTuning.forLongRun()
        let runtime = try await ActivationRuntime(activator: self, options: .init(workers: workers))
        let chunks = DescriptorChunks(descriptor: descriptor, name: input.name, stopWaiting: { stop.isRequested })
        let bytesRead: (@Sendable (Int) -> Void)? = progress.map { progress in
            { @Sendable bytes in progress(bytes, totalBytes) }
        }
        let summary: Result<BatchSummary, any Error>
        do {
            summary = .success(
                try await runtime.batch(
                    chunks, window: workers * Self.reorderWindowPerWorker,
                    decode: { @Sendable line in ActivationRuntime.BatchLine.deeplink(line, dryRun: dryRun) },
                    isStopping: { @Sendable in stop.isRequested }, progress: bytesRead, emitInOrder: emit
                ))
        } catch {
            summary = .failure(error)
        }
        let figures = runtime.figures
        await runtime.close()
        var counted = try summary.get()
        (counted.transactions, counted.committedSteps) = figures
        return counted
    }
}

/// The batch's input could not be opened.
public struct BatchInputError: CodedError {
    public let code = ErrorCode.activationBatchUnreadable
    public let message: String
}

/// Asks a running batch to stop reading (a signal handler sets it; the batch polls it).
public final class BatchStop: Sendable {
    private let requested = Atomic<Bool>(false)

    public init() {}

    public func request() {
        requested.store(true, ordering: .relaxed)
    }

    public var isRequested: Bool { requested.load(ordering: .relaxed) }
}

extension BatchSummary {
    mutating func count(_ result: ActivationResult) {
        lines += 1
        if !result.warnings.isEmpty { warnings += 1 }
        outcomes[result.outcome, default: 0] += 1
        if let error = result.error {
            errors[error.code, default: 0] += 1
            if let step = error.nextStep, nextSteps[error.code] == nil { nextSteps[error.code] = step }
        }
    }
}

extension ImportInput {
    /// A descriptor to read, and the size when it is a regular file.
    func open() throws(ImportError) -> (Int32, Int?) {
        guard case .file(let path) = self else { return (STDIN_FILENO, nil) }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path, SystemError.text()) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else {
            _ = Glibc.close(descriptor)
            throw .unreadable(path, "it is a directory")
        }
        return (descriptor, (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil)
    }
}

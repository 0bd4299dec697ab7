import ErrorCodes
import Glibc
import Storage
import Synchronization

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
    /// - Throws: ``ImportError`` `import.unreadable` when the input cannot be read, or a
    ///   ``StorageError`` when the database cannot be opened.
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
        return try await StoreSource.options(settings.database).using(logger: logger) { store in
            try await activateBatch(lines: descriptor, name: input.name, totalBytes: totalBytes, store: store, concurrency: concurrency, progress: progress, dryRun: dryRun, stop: stop, emit: emit)
        }
    }

    /// A line of the batch as it finishes: a result, or a blank line that is counted and
    /// printed nowhere (blank lines keep their numbers).
    private enum LineResult: Sendable {
        case blank
        case result(ActivationResult)
    }

    private func activateBatch(
        lines descriptor: Int32, name: String, totalBytes: Int?, store: Store, concurrency: Int,
        progress: (@Sendable (_ bytesRead: Int, _ totalBytes: Int?) -> Void)?, dryRun: Bool, stop: BatchStop,
        emit: (_ line: Int, _ result: ActivationResult) -> Void
    ) async throws -> BatchSummary {
        let workers = max(1, concurrency)
        let session = try await Session(activator: self, store: store, clients: workers)
        defer { session.close() }
        let parser = self.parser
        var lines = LineReader(reader: ByteReader(descriptor: descriptor, name: name))
        var summary = BatchSummary()

        await withTaskGroup(of: (Int, Int, ActivationResult).self) { group in
            var freeWorkers = Array(0..<workers)
            var pending: [Int: LineResult] = [:]
            var nextToEmit = 1
            var lastRead = 0
            var exhausted = false
            var inFlight = 0

            func emitReady() {
                while let line = pending.removeValue(forKey: nextToEmit) {
                    if case .result(let result) = line {
                        summary.count(result)
                        emit(nextToEmit, result)
                    }
                    nextToEmit += 1
                }
            }

            while true {
                if !exhausted && stop.isRequested {
                    exhausted = true
                    summary.stoppedEarly = true
                }
                // Start lines while a worker is free and the window allows.
                while !exhausted, !freeWorkers.isEmpty, lastRead - nextToEmit < workers * Self.reorderWindowPerWorker {
                    let next: (line: Int, bytes: [UInt8], overflowed: Bool)?
                    do {
                        next = try lines.next(limit: Self.batchLineLimit)
                    } catch {
                        exhausted = true
                        pending[lastRead + 1] = .result(ActivationResult(outcome: .error, error: .coded(error)))
                        lastRead += 1
                        break
                    }
                    guard let (number, bytes, overflowed) = next else {
                        exhausted = true
                        break
                    }
                    lastRead = number
                    let text = String(decoding: bytes, as: UTF8.self).trimmingASCIISpaces
                    if text.isEmpty {
                        pending[number] = .blank
                        continue
                    }
                    let deeplink: Deeplink
                    do throws(DeeplinkError) {
                        // The parser's own errors for what the line reader already knows.
                        if overflowed { throw DeeplinkParser.tooLong }
                        if !bytes.isValidUTF8 { throw DeeplinkParser.invalidCharacter(bytes.first { $0 >= 0x80 } ?? 0x80) }
                        deeplink = try parser.parse(text)
                    } catch {
                        pending[number] = .result(.refused(error))
                        continue
                    }
                    let worker = freeWorkers.removeLast()
                    inFlight += 1
                    group.addTask {
                        (number, worker, await session.run(deeplink, text: text, device: nil, client: worker, dryRun: dryRun))
                    }
                }
                emitReady()
                progress?(lines.bytesConsumed, totalBytes)
                if inFlight == 0 && (exhausted || freeWorkers.isEmpty) { break }
                guard let (number, worker, result) = await group.next() else { break }
                inFlight -= 1
                freeWorkers.append(worker)
                pending[number] = .result(result)
                emitReady()
            }
            emitReady()
        }
        progress?(lines.bytesConsumed, totalBytes)
        (summary.transactions, summary.committedSteps) = session.committer.figures
        return summary
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
        if let code = result.error?.code { errors[code, default: 0] += 1 }
    }
}

extension ImportInput {
    /// A descriptor to read, and the size when it is a regular file.
    func open() throws(ImportError) -> (Int32, Int?) {
        guard case .file(let path) = self else { return (STDIN_FILENO, nil) }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path, String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else {
            _ = Glibc.close(descriptor)
            throw .unreadable(path, "it is a directory")
        }
        return (descriptor, (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil)
    }
}

private extension String {
    var trimmingASCIISpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}

private extension Array where Element == UInt8 {
    var isValidUTF8: Bool { String(validating: self, as: UTF8.self) != nil }
}

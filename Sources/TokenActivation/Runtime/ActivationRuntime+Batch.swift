import ErrorCodes
import Synchronization
import WalletModel

extension ActivationRuntime {
    /// What a batch's caller made of one non-blank line.
    public enum BatchLine: Sendable {
        /// An activation to run.
        case request(deeplink: String, device: String?, dryRun: Bool)
        /// The line's result without running anything (a line the caller could not read).
        case answered(ActivationResult)
    }

    /// Runs a batch: splits `chunks` into lines (the one line reader), runs each non-blank
    /// line as an activation of this runtime in its one queue, and hands every result to
    /// `emit` in input order as soon as it and every line before it are finished. A bad line
    /// is a result like any other and does not stop the batch; blank lines keep their numbers
    /// and are emitted nowhere. At most `window` lines are read ahead of the oldest one not
    /// yet emitted.
    ///
    /// - Parameters:
    ///   - decode: what a line (trimmed of spaces, tabs and CRs, never empty) asks for.
    ///   - isStopping: asked before each line is read and when a worker takes it; once true
    ///     no further line is read or started, the lines started finish and are emitted, the
    ///     output ends after the last line before the first one not started, and the summary
    ///     says the batch stopped early.
    ///   - progress: the bytes read so far, as lines are emitted.
    ///   - emit: receives (line number, result), in input order. When it throws, no further
    ///     line is read; the lines started still run; the error is rethrown.
    /// - Returns: the counts of what was emitted (the database figures are the caller's).
    public func batch<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, window: Int,
        decode: @escaping @Sendable (_ line: [UInt8]) -> BatchLine,
        isStopping: @escaping @Sendable () -> Bool,
        progress: (@Sendable (_ bytesRead: Int) -> Void)? = nil,
        emit: (_ line: Int, _ result: ActivationResult) async throws -> Void
    ) async throws -> BatchSummary where Chunks.Element: Collection<UInt8> {
        let bytesRead = ByteCount()
        let order = BatchOrder(window: window)
        return try await run(chunks, order: order, bytesRead: bytesRead, decode: decode, isStopping: isStopping) {
            var summary = BatchSummary()
            while let (number, line) = await order.next() {
                guard case .result(let result) = line else { continue }
                summary.count(result)
                try await emit(number, result)
                progress?(bytesRead.value)
            }
            return summary
        }
    }

    /// The same, with `emitInOrder` called on the thread that finished each line, one line at
    /// a time and in input order, while the batch runs: output without a hop between threads
    /// per line, for output that does not wait (a CLI's standard output).
    public func batch<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, window: Int,
        decode: @escaping @Sendable (_ line: [UInt8]) -> BatchLine,
        isStopping: @escaping @Sendable () -> Bool,
        progress: (@Sendable (_ bytesRead: Int) -> Void)? = nil,
        emitInOrder: (_ line: Int, _ result: ActivationResult) -> Void
    ) async throws -> BatchSummary where Chunks.Element: Collection<UInt8> {
        // Every line is emitted before the batch returns: `emitInOrder` does not outlive it.
        try await withoutActuallyEscaping(emitInOrder) { emit in
            let bytesRead = ByteCount()
            let counted = CountedSummary()
            let order = BatchOrder(
                window: window,
                inline: InlineSink { number, line in
                    guard case .result(let result) = line else { return }
                    counted.summary.count(result)
                    emit(number, result)
                    progress?(bytesRead.value)
                })
            defer { order.closeSink() }
            return try await run(chunks, order: order, bytesRead: bytesRead, decode: decode, isStopping: isStopping) {
                while await order.next() != nil {}
                return counted.summary
            }
        }
    }

    /// Reads the batch's lines into `order` on a task of their own while `consume` takes
    /// its output.
    private func run<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, order: BatchOrder, bytesRead: ByteCount, decode: @escaping @Sendable ([UInt8]) -> BatchLine,
        isStopping: @escaping @Sendable () -> Bool, consume: () async throws -> BatchSummary
    ) async throws -> BatchSummary where Chunks.Element: Collection<UInt8> {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.read(chunks, into: order, decode: decode, isStopping: isStopping) { bytesRead.add($0) }
            }
            var summary: BatchSummary
            do {
                summary = try await consume()
            } catch {
                order.abandon()
                throw error
            }
            summary.stoppedEarly = try await group.next() ?? false || order.wasCut
            return summary
        }
    }

    /// Reads the lines of a batch and starts each as a child task of one task group, admitted
    /// in input order; returns once every line started has finished.
    /// - Returns: whether it stopped early.
    private func read<Chunks: AsyncSequence>(
        _ chunks: Chunks, into order: BatchOrder, decode: @escaping @Sendable ([UInt8]) -> BatchLine,
        isStopping: @escaping @Sendable () -> Bool,
        counted: (Int) -> Void
    ) async -> Bool where Chunks.Element: Collection<UInt8> {
        var splitter = LineSplitter(limit: Activator.batchLineLimit)
        var number = 0
        defer { order.end() }
        return await withDiscardingTaskGroup { lines in
            /// Starts one line; false once no further line may be read.
            func start(_ bytes: [UInt8]) async -> Bool {
                number += 1
                order.read(number)
                if let (job, admission) = await admit(
                    number, bytes.trimmingSpaces, order: order, decode: decode, isStopping: isStopping)
                {
                    lines.addTask { [number] in
                        if await !self.run(job, admission) {
                            order.settle(number, .result(.notRun(Self.stopping)))
                        }
                    }
                }
                return await order.awaitRoom()
            }
            do {
                for try await chunk in chunks {
                    counted(chunk.count)
                    for line in splitter.append(chunk) {
                        if isStopping() { return true }
                        guard await start(line) else { return false }
                    }
                }
            } catch {
                number += 1
                order.read(number)
                order.settle(number, .result(ActivationResult(outcome: .error, error: .coded(error))))
                return false
            }
            if isStopping() { return true }
            if let last = splitter.finish() { _ = await start(last) }
            return false
        }
    }

    /// Line `number`'s job, admitted; nil when it was settled at once (blank, or unable to run).
    private func admit(
        _ number: Int, _ text: ArraySlice<UInt8>, order: BatchOrder, decode: ([UInt8]) -> BatchLine,
        isStopping: @escaping @Sendable () -> Bool
    ) async -> (ActivationJob, RuntimeSlots.Admission)? {
        guard !text.isEmpty else {
            order.settle(number, .blank)
            return nil
        }
        let (line, device, dryRun): (String, String?, Bool)
        switch decode(Array(text)) {
        case .answered(let result):
            order.settle(number, .result(result))
            return nil
        case .request(let deeplink, let lineDevice, let lineDryRun):
            (line, device, dryRun) = (deeplink, lineDevice, lineDryRun)
        }
        let deeplink: Deeplink
        do {
            deeplink = try activator.parser.parse(line)
        } catch {
            order.settle(number, .result(.refused(error)))
            return nil
        }
        let job = ActivationJob(
            deeplink: deeplink, text: line, device: device, dryRun: dryRun, refusal: await gateRefusal(),
            requestID: nil, submitted: .now,
            isWithdrawn: { !order.mayStart(number, stopping: isStopping()) },
            deliver: { result in result.map { order.settle(number, .result($0)) } ?? order.withdraw(number) }
        )
        return (job, admit(bounded: false))
    }
}

extension ActivationRuntime.BatchLine {
    /// A line holding a deeplink alone. A line longer than a deeplink may be, or not UTF-8,
    /// is refused as the parser refuses it, naming its first byte outside a URI.
    public static func deeplink(_ line: [UInt8], dryRun: Bool) -> Self {
        if line.count > DeeplinkParser.maximumLength { return .answered(.refused(DeeplinkParser.tooLong)) }
        guard let text = String(checkedUTF8: line) else {
            return .answered(.refused(DeeplinkParser.invalidCharacter(line.first { $0 >= 0x80 } ?? 0x80)))
        }
        return .request(deeplink: text, device: nil, dryRun: dryRun)
    }
}

/// The bytes a batch has read, for its progress.
private final class ByteCount: Sendable {
    private let count = Atomic<Int>(0)

    func add(_ bytes: Int) {
        count.add(bytes, ordering: .relaxed)
    }

    var value: Int { count.load(ordering: .relaxed) }
}

/// The summary the inline sink counts. Unchecked Sendable: the sink runs on one thread at a
/// time, outside the order's lock; a thread takes and gives up the sink under that lock
/// (``BatchOrder/settle(_:_:)``), so each thread's counts come after the previous one's, and
/// the batch reads the summary once the order has handed out every line.
private final class CountedSummary: @unchecked Sendable {
    var summary = BatchSummary()
}

import Foundation

/// The lines of a batch as the workers share them: each worker takes the next line to
/// activate and hands its result back; results are emitted in input order as soon as they
/// are in order, and counted. Blank lines and lines that do not parse are settled here,
/// without a worker. At most `window` lines are read ahead of the oldest unfinished one,
/// so memory stays bounded whatever the input size.
///
/// Everything is guarded by one lock, `emit` and `progress` included: output is written by
/// one worker at a time, in order.
final class BatchLines: @unchecked Sendable {
    /// A line of the batch as it finishes: a result, or a blank line that is counted and
    /// printed nowhere (blank lines keep their numbers).
    private enum LineResult {
        case blank
        case result(ActivationResult)
    }

    private let condition = NSCondition()
    private var reader: LineReader
    private let parser: DeeplinkParser
    private let window: Int
    private let stop: BatchStop
    private let progress: ((_ bytesRead: Int) -> Void)?
    /// Dropped by ``finished()``: the caller's closure must not outlive the batch.
    private var emit: UncheckedEmit?
    private var pending: [Int: LineResult] = [:]
    private var nextToEmit = 1
    private var lastRead = 0
    private var exhausted = false
    private var summary = BatchSummary()

    init(reader: LineReader, parser: DeeplinkParser, window: Int, stop: BatchStop, progress: ((_ bytesRead: Int) -> Void)?, emit: UncheckedEmit) {
        self.reader = reader
        self.parser = parser
        self.window = window
        self.stop = stop
        self.progress = progress
        self.emit = emit
    }

    /// What ``take(holdingUnfinished:)`` gives a worker.
    enum Take {
        case line(number: Int, deeplink: Deeplink, text: String)
        /// The input ended or could not be read, or a stop was requested.
        case end
        /// The window is full and the worker holds an unfinished line: it must finish that
        /// line before it may wait (the line may be the one the window waits for).
        case finishHeldLine
    }

    /// The next line to activate. Waits while the window is full, unless the caller holds
    /// an unfinished line.
    func take(holdingUnfinished: Bool = false) -> Take {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if !exhausted && stop.isRequested {
                exhausted = true
                summary.stoppedEarly = true
            }
            if exhausted { return .end }
            if lastRead - nextToEmit >= window {
                if holdingUnfinished { return .finishHeldLine }
                condition.wait()
                continue
            }
            let next: (line: Int, bytes: [UInt8], overflowed: Bool)?
            do {
                next = try reader.next(limit: Activator.batchLineLimit)
            } catch {
                exhausted = true
                lastRead += 1
                settle(lastRead, .result(ActivationResult(outcome: .error, error: .coded(error))))
                return .end
            }
            guard let (number, bytes, overflowed) = next, !stop.isRequested else {
                // The end of the input, or a line that arrived after the stop: not sent.
                if stop.isRequested { summary.stoppedEarly = true }
                exhausted = true
                condition.broadcast()
                return .end
            }
            lastRead = number
            let text = String(decoding: bytes, as: UTF8.self).trimmingASCIISpaces
            if text.isEmpty {
                settle(number, .blank)
                continue
            }
            do throws(DeeplinkError) {
                // The parser's own errors for what the line reader already knows.
                if overflowed { throw DeeplinkParser.tooLong }
                if !bytes.isValidUTF8 { throw DeeplinkParser.invalidCharacter(bytes.first { $0 >= 0x80 } ?? 0x80) }
                return .line(number: number, deeplink: try parser.parse(text), text: text)
            } catch {
                settle(number, .result(.refused(error)))
            }
        }
    }

    /// A worker's result for line `number`.
    func finish(_ number: Int, _ result: ActivationResult) {
        condition.lock()
        defer { condition.unlock() }
        settle(number, .result(result))
        progress?(reader.bytesConsumed)
    }

    /// The summary, once every worker has returned. Nothing is emitted after it.
    func finished() -> BatchSummary {
        condition.lock()
        defer { condition.unlock() }
        progress?(reader.bytesConsumed)
        emit = nil
        return summary
    }

    /// Records a line's end and emits every result now in order. Called under the lock.
    private func settle(_ number: Int, _ result: LineResult) {
        pending[number] = result
        let before = nextToEmit
        while let line = pending.removeValue(forKey: nextToEmit) {
            if case .result(let result) = line {
                summary.count(result)
                emit?.body(nextToEmit, result)
            }
            nextToEmit += 1
        }
        if nextToEmit != before { condition.broadcast() }
    }
}

/// The caller's `emit`, called by one worker at a time under ``BatchLines``' lock, and only
/// while the batch runs.
struct UncheckedEmit: @unchecked Sendable {
    let body: (_ line: Int, _ result: ActivationResult) -> Void

    init(_ body: @escaping (_ line: Int, _ result: ActivationResult) -> Void) {
        self.body = body
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
    var isValidUTF8: Bool { String(checkedUTF8: self) != nil }
}

import Synchronization

/// A batch's lines as they finish, handed to its reader in input order as soon as each
/// line and every line before it are finished, with at most `window` lines read ahead of
/// the oldest one not yet handed out: output keeps input order while memory stays bounded
/// whatever the input size.
///
/// With an inline sink, each line is handed to it instead, on a thread that finished a line
/// (one thread at a time, in order, outside the lock), and ``next()`` only waits for the end:
/// a CLI batch prints without a hop between threads per line.
final class BatchOrder: Sendable {
    /// A line as it finishes: a result, or a blank line that is counted nowhere (blank
    /// lines keep their numbers).
    enum Line: Sendable {
        case blank
        case result(ActivationResult)
    }

    private struct State {
        var finished: [Int: Line] = [:]
        var nextOut = 1
        var lastRead = 0
        var ended = false
        /// The first line withdrawn unrun: it and every line after it are dropped.
        var cutoff = Int.max
        /// The last line in input order that started running.
        var lastStarted = 0
        var abandoned = false
        var reader: CheckedContinuation<Void, Never>?
        var producer: CheckedContinuation<Void, Never>?

        /// A thread is handing lines to the inline sink (outside the lock).
        var emitting = false
        /// Lines go to an inline sink: the reader only waits for the end.
        let inline: Bool
        var isDone: Bool { !emitting && (nextOut >= cutoff || (ended && nextOut > lastRead)) }
        var hasNext: Bool { (!inline && finished[nextOut] != nil) || isDone }
        /// No further line is to be read.
        var isStopped: Bool { abandoned || cutoff != .max }
        var hasRoom: Bool { isStopped || lastRead - nextOut < window }
        /// A producer waiting for room is woken once half the window is free: it then reads
        /// lines in bursts, not one wake-up per line handed out.
        var hasRoomToWake: Bool { isStopped || lastRead - nextOut < (window + 1) / 2 }
        let window: Int

        /// The lines now in order, taken out for the inline sink.
        mutating func takeInOrder() -> [(Int, Line)] {
            var lines: [(Int, Line)] = []
            while nextOut < cutoff, let line = finished.removeValue(forKey: nextOut) {
                lines.append((nextOut, line))
                nextOut += 1
            }
            return lines
        }
    }

    private let state: Mutex<State>
    private let sink: InlineSink?

    init(window: Int, inline sink: InlineSink? = nil) {
        state = Mutex(State(inline: sink != nil, window: max(1, window)))
        self.sink = sink
    }

    /// Line `number` was read (numbers count up from 1).
    func read(_ number: Int) {
        state.withLock { $0.lastRead = number }
    }

    /// Waits while the window is full.
    /// - Returns: false once the reader has stopped reading or a line was withdrawn: read
    ///   no further line.
    func awaitRoom() async -> Bool {
        if let room = state.withLock({ state in state.hasRoom ? !state.isStopped : nil }) { return room }
        await park(\.producer, unless: \.hasRoom)
        return !state.withLock { $0.isStopped }
    }

    /// No line follows the last one read.
    func end() {
        state.withLock { state in
            state.ended = true
            return state.reader.take()
        }?.resume()
    }

    /// Line `number` finished; from any thread. With an inline sink, the first thread to
    /// find lines in order hands them to it outside the lock, and goes on while more come in
    /// order; the others leave theirs and return.
    func settle(_ number: Int, _ line: Line) {
        var lines = state.withLock { state -> [(Int, Line)] in
            state.finished[number] = line
            guard sink != nil, !state.emitting else { return [] }
            let lines = state.takeInOrder()
            state.emitting = !lines.isEmpty
            return lines
        }
        while !lines.isEmpty {
            for (number, line) in lines { sink?.take(number, line) }
            lines = state.withLock { state in
                let lines = state.takeInOrder()
                state.emitting = !lines.isEmpty
                return lines
            }
        }
        let (reader, producer) = state.withLock { state in
            (
                state.hasNext ? state.reader.take() : nil,
                sink != nil && state.hasRoomToWake ? state.producer.take() : nil
            )
        }
        reader?.resume()
        producer?.resume()
    }

    /// The next line in input order, once it is finished; nil once the input ended and every
    /// line was handed out. Called by one task.
    func next() async -> (number: Int, line: Line)? {
        while true {
            enum Step {
                case line(Int, Line, CheckedContinuation<Void, Never>?)
                case done, wait
            }
            let step = state.withLock { state -> Step in
                if !state.inline, state.nextOut < state.cutoff,
                    let line = state.finished.removeValue(forKey: state.nextOut)
                {
                    state.nextOut += 1
                    return .line(state.nextOut - 1, line, state.hasRoomToWake ? state.producer.take() : nil)
                }
                return state.isDone ? .done : .wait
            }
            switch step {
            case .line(let number, let line, let producer):
                producer?.resume()
                return (number, line)
            case .done:
                return nil
            case .wait:
                await park(\.reader, unless: \.hasNext)
            }
        }
    }

    /// Waits in `slot` until woken, unless `ready` holds already (checked under the lock, so
    /// no wake-up is missed).
    private func park(
        _ slot: WritableKeyPath<State, CheckedContinuation<Void, Never>?>, unless ready: KeyPath<State, Bool>
    ) async {
        await withCheckedContinuation { continuation in
            let isReady = state.withLock { state -> Bool in
                if state[keyPath: ready] { return true }
                state[keyPath: slot] = continuation
                return false
            }
            if isReady { continuation.resume() }
        }
    }

    /// Whether line `number` may start now that it has a slot: once the batch is stopping,
    /// a line after the last one started is withdrawn, while a line before it runs (lines get
    /// their slots in input order but may start out of it), so the output ends before the
    /// first line withdrawn and no line that ran is lost.
    func mayStart(_ number: Int, stopping: Bool) -> Bool {
        state.withLock { state in
            guard !stopping || number < state.lastStarted, number < state.cutoff else { return false }
            state.lastStarted = max(state.lastStarted, number)
            return true
        }
    }

    /// Line `number` was withdrawn unrun (the batch stopped after it was queued): the
    /// output ends before it.
    func withdraw(_ number: Int) {
        let (reader, producer) = state.withLock { state in
            state.cutoff = min(state.cutoff, number)
            return (state.reader.take(), state.producer.take())
        }
        reader?.resume()
        producer?.resume()
    }

    /// Drops the inline sink once the batch is over (jobs may still hold this order).
    func closeSink() {
        state.withLock { _ in sink?.close() }
    }

    /// Whether a line was withdrawn.
    var wasCut: Bool {
        state.withLock { $0.cutoff != .max }
    }

    /// The reader stopped (its output failed): the producer reads no further line.
    func abandon() {
        state.withLock { state in
            state.abandoned = true
            return state.producer.take()
        }?.resume()
    }
}

/// A batch's caller's synchronous output, called by ``BatchOrder``: by one thread at a time,
/// in input order, only while the batch runs.
final class InlineSink: @unchecked Sendable {
    /// Dropped by ``BatchOrder/closeSink()``: the caller's closure must not outlive the batch.
    private var body: ((_ number: Int, _ line: BatchOrder.Line) -> Void)?

    init(_ body: @escaping (_ number: Int, _ line: BatchOrder.Line) -> Void) {
        self.body = body
    }

    func take(_ number: Int, _ line: BatchOrder.Line) {
        body?(number, line)
    }

    fileprivate func close() {
        body = nil
    }
}

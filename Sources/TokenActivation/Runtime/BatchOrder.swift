import Synchronization

/// A batch's lines as they finish, handed to its reader in input order as soon as each
/// line and every line before it are finished, with at most `window` lines read ahead of
/// the oldest one not yet handed out: output keeps input order while memory stays bounded
/// whatever the input size.
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
        var abandoned = false
        var reader: CheckedContinuation<Void, Never>?
        var producer: CheckedContinuation<Void, Never>?

        var isDone: Bool { nextOut >= cutoff || (ended && nextOut > lastRead) }
        var hasNext: Bool { finished[nextOut] != nil || isDone }
        /// No further line is to be read.
        var isStopped: Bool { abandoned || cutoff != .max }
        var hasRoom: Bool { isStopped || lastRead - nextOut < window }
        let window: Int
    }

    private let state: Mutex<State>

    init(window: Int) {
        state = Mutex(State(window: max(1, window)))
    }

    /// Line `number` was read (numbers count up from 1).
    func read(_ number: Int) {
        state.withLock { $0.lastRead = number }
    }

    /// Waits while the window is full.
    /// - Returns: false once the reader has stopped reading or a line was withdrawn: read
    ///   no further line.
    func awaitRoom() async -> Bool {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.hasRoom { return true }
                state.producer = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        return !state.withLock { $0.isStopped }
    }

    /// No line follows the last one read.
    func end() {
        state.withLock { state in
            state.ended = true
            return state.reader.take()
        }?.resume()
    }

    /// Line `number` finished; from any thread.
    func settle(_ number: Int, _ line: Line) {
        state.withLock { state in
            state.finished[number] = line
            return number == state.nextOut ? state.reader.take() : nil
        }?.resume()
    }

    /// The next line in input order, once it is finished; nil once the input ended and every
    /// line was handed out. Called by one task.
    func next() async -> (number: Int, line: Line)? {
        while true {
            enum Step { case line(Int, Line, CheckedContinuation<Void, Never>?), done, wait }
            let step = state.withLock { state -> Step in
                if state.nextOut < state.cutoff, let line = state.finished.removeValue(forKey: state.nextOut) {
                    state.nextOut += 1
                    return .line(state.nextOut - 1, line, state.hasRoom ? state.producer.take() : nil)
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
                await withCheckedContinuation { continuation in
                    let ready = state.withLock { state -> Bool in
                        if state.hasNext { return true }
                        state.reader = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            }
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

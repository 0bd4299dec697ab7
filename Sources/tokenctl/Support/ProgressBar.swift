import Glibc
import Synchronization
import TokenctlCommandLine

/// A one-line progress bar on standard error. `update` redraws at most ten times a second;
/// `tick` redraws with the elapsed time, so the line moves while requests are slow. Any
/// thread may call either.
final class ProgressBar: Sendable {
    private struct State {
        var done = 0
        var total: Int?
        var lastDraw: UInt64 = 0
        var drawn = false
        var finished = false
    }

    private let label: String
    private let started = ProgressBar.monotonicMilliseconds()
    private let state = Mutex(State())

    init(label: String) {
        self.label = label
    }

    func update(done: Int, total: Int?) {
        state.withLock { state in
            state.done = done
            state.total = total
            let now = Self.monotonicMilliseconds()
            let complete = total.map { done >= $0 } ?? false
            guard !state.finished, now - state.lastDraw >= 100 || !state.drawn || complete else { return }
            draw(&state, now: now)
        }
    }

    /// Redraws with the latest figures and the elapsed time.
    func tick() {
        state.withLock { state in
            guard !state.finished else { return }
            draw(&state, now: Self.monotonicMilliseconds())
        }
    }

    func clear() {
        state.withLock { state in
            state.finished = true
            guard state.drawn else { return }
            state.drawn = false
            writeAll(STDERR_FILENO, "\r\u{1B}[K")
        }
    }

    private func draw(_ state: inout State, now: UInt64) {
        state.lastDraw = now
        state.drawn = true
        var text = "\r\(label) "
        if let total = state.total, total > 0 {
            let fraction = min(1, Double(state.done) / Double(total))
            let filled = Int(fraction * 30)
            text += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled) + "] "
            text += "\(Int(fraction * 100))% "
        }
        text += Self.megabytes(state.done) + (state.total.map { " / " + Self.megabytes($0) } ?? "")
        let seconds = (now - started) / 1000
        text += "  \(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
        writeAll(STDERR_FILENO, text + "\u{1B}[K")
    }

    private static func megabytes(_ bytes: Int) -> String {
        let tenths = bytes * 10 / 1_000_000
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    private static func monotonicMilliseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1000 + UInt64(time.tv_nsec) / 1_000_000
    }
}

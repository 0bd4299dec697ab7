import Glibc

/// A one-line progress bar on standard error, redrawn at most ten times a second.
final class ProgressBar {
    private let label: String
    private var lastDraw: UInt64 = 0
    private var drawn = false

    init(label: String) {
        self.label = label
    }

    func update(done: Int, total: Int?) {
        let now = Self.monotonicMilliseconds()
        let finished = total.map { done >= $0 } ?? false
        guard now - lastDraw >= 100 || !drawn || finished else { return }
        lastDraw = now
        drawn = true
        var text = "\r\(label) "
        if let total, total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            let filled = Int(fraction * 30)
            text += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled) + "] "
            text += "\(Int(fraction * 100))% "
        }
        text += Self.megabytes(done) + (total.map { " / " + Self.megabytes($0) } ?? "")
        writeAll(STDERR_FILENO, text + "\u{1B}[K")
    }

    func clear() {
        guard drawn else { return }
        drawn = false
        writeAll(STDERR_FILENO, "\r\u{1B}[K")
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

import Foundation
import Synchronization
import Testing
@testable import TokenActivation
import WalletModel

@Suite struct BatchLinesTests {
    final class Emitted: Sendable {
        let lines = Mutex<[Int]>([])
    }

    /// Given a full window whose oldest line a worker still holds, when that worker asks
    /// for a line, then it is told to finish its held line (waiting would never end); once
    /// finished, the window moves on and every line is emitted in order.
    @Test func aWorkerHoldingTheOldestLineIsToldToFinishIt() throws {
        let text = (1...4).map { "mybank://activate?serialNumber=SN\($0)\n" }.joined()
        let fd = descriptor(reading: Array(text.utf8))
        defer { close(fd) }
        let emitted = Emitted()
        let lines = BatchLines(
            reader: LineReader(reader: ByteReader(descriptor: fd, name: "test")), parser: DeeplinkParser(formats: [DeeplinkFormat("mybank://activate")!]),
            window: 1, stop: BatchStop(), progress: nil, emit: UncheckedEmit { line, _ in emitted.lines.withLock { $0.append(line) } }
        )
        guard case .line(let first, _, _) = lines.take() else { Issue.record("no first line"); return }
        guard case .line(let second, _, _) = lines.take(holdingUnfinished: true) else { Issue.record("no second line"); return }
        guard case .finishHeldLine = lines.take(holdingUnfinished: true) else { Issue.record("the worker was not told to finish"); return }
        lines.finish(first, ActivationResult(outcome: .approved))
        guard case .line(let third, _, _) = lines.take(holdingUnfinished: true) else { Issue.record("no third line"); return }
        lines.finish(second, ActivationResult(outcome: .approved))
        lines.finish(third, ActivationResult(outcome: .approved))
        guard case .line(let fourth, _, _) = lines.take() else { Issue.record("no fourth line"); return }
        lines.finish(fourth, ActivationResult(outcome: .approved))
        guard case .end = lines.take() else { Issue.record("no end"); return }
        #expect(emitted.lines.withLock { $0 } == [1, 2, 3, 4])
        #expect(lines.finished().lines == 4)
    }
}

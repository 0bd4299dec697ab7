import ErrorCodes
import Foundation
import HTTPTransport
import Logging
import Synchronization
import TestSupport
import Testing
import TokenctlApp
import TokenctlConfiguration
import WalletModel

@testable import TokenActivation

/// The one activation runtime on a real SQLite file and the transport double: its one
/// admission, the deferred finish that never waits for a job to come, and a stopped batch.
struct ActivationRuntimeTests {
    let directory = TemporaryDirectory()

    func settings() -> Settings {
        var settings = Settings.builtIn(environment: [:])
        settings.database = .init(path: directory.file("wallet.sqlite"))
        settings.tmp.baseURL = "https://tmp.example.com/"
        return settings
    }

    func runtime(
        _ transport: some HTTPTransport, _ options: ActivationRuntime.Options
    ) async throws -> ActivationRuntime {
        let activator = Activator(
            settings: settings(), environment: [:], transports: .always(transport),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), sleep: { _ in }
        )
        return try await ActivationRuntime(activator: activator, options: options)
    }

    func addPasses(_ count: Int) async throws {
        let wallet = try Wallet(settings: settings())
        for index in 1...count {
            _ = try await wallet.add(
                PassRecordFields(
                    serialNumber: "SN\(index)", deviceAccountIdentifier: "DAPL\(String(format: "%08d", index))"))
        }
    }

    static let approved = HTTPResponse(status: 200, body: Array(#"{"issuerMobileAppAuthResponse":"APPROVED"}"#.utf8))

    /// A transport whose answers wait until it is opened.
    final class HeldTransport: HTTPTransport {
        private let gate = Mutex<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))
        let arrived = Atomic(0)

        func transport() -> HeldTransport { self }

        /// Answers every request waiting, and every later one at once.
        func open() {
            let waiting = gate.withLock { gate in
                gate.isOpen = true
                defer { gate.waiting = [] }
                return gate.waiting
            }
            for request in waiting { request.resume() }
        }

        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            arrived.add(1, ordering: .relaxed)
            await withCheckedContinuation { request in
                if gate.withLock({ gate in
                    if !gate.isOpen { gate.waiting.append(request) }
                    return gate.isOpen
                }) {
                    request.resume()
                }
            }
            return ActivationRuntimeTests.approved
        }

        func waitForArrivals(_ count: Int) async {
            while arrived.load(ordering: .relaxed) < count { try? await Task.sleep(for: .milliseconds(5)) }
        }
    }

    /// A transport that answers APPROVED at once.
    final class AnsweringTransport: HTTPTransport {
        let sent = Atomic(0)

        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            sent.add(1, ordering: .relaxed)
            return ActivationRuntimeTests.approved
        }
    }

    /// One runs, one waits, the third is refused with nothing run; the waiter runs once the
    /// worker is free.
    @Test func admitsUpToItsCapacityThenRefuses() async throws {
        try await addPasses(3)
        let held = HeldTransport()
        var options = ActivationRuntime.Options(workers: 1)
        options.capacity = 2
        let runtime = try await runtime(held.transport(), options)
        async let first = runtime.activate(deeplink: "mybank://activate?serialNumber=SN1")
        await held.waitForArrivals(1)
        async let second = runtime.activate(deeplink: "mybank://activate?serialNumber=SN2")
        while runtime.load.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(runtime.isFull)
        #expect(runtime.load.running == 1)
        #expect(await runtime.activate(deeplink: "mybank://activate?serialNumber=SN3") == nil)
        held.open()
        #expect(await [first?.outcome, second?.outcome] == [.approved, .approved])
        await runtime.close()
        #expect(runtime.load.running == 0 && runtime.load.waiting == 0)
        await #expect(
            try Wallet(settings: settings()).show(PassQuery(serialNumber: "SN3")).map(\.state) == [.requiresActivation])
    }

    /// With the finish deferred, a lone activation is answered once its "finished" write is
    /// committed, without waiting for a next job; under load, finishes share commits.
    @Test func aDeferredFinishIsAnsweredAtOnceWhenNothingWaits() async throws {
        try await addPasses(40)
        let transport = ClosureTransport { _, _ throws(TransportError) in Self.approved }
        let runtime = try await runtime(transport, ActivationRuntime.Options(workers: 4))
        let lone = try #require(await runtime.activate(deeplink: "mybank://activate?serialNumber=SN1"))
        #expect(lone.outcome == .approved)
        // Answered after its commit: the audit holds its finished attempt already.
        var finished: [String?] = []
        try await runtime.database.forEachAuditEntry(AuditFilter(serialNumber: "SN1")) { finished.append($0.outcome) }
        #expect(finished == ["APPROVED"])
        let results = await withTaskGroup(of: ActivationResult?.self) { group in
            for index in 2...40 {
                group.addTask { await runtime.activate(deeplink: "mybank://activate?serialNumber=SN\(index)") }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0?.outcome == .approved })
        let (transactions, steps) = runtime.figures
        #expect(steps == 80)
        #expect(transactions < steps)
        await runtime.close()
        let (rows, broken) = try await Audit(settings: settings()).verify()
        #expect(rows == 80 && broken == nil)
    }

    @TaskLocal static var caller: String?

    /// An activation runs in the task that submitted it, with no worker thread between: the
    /// transport sees each caller's task-local value, which a hand-off to a thread would lose.
    @Test func anActivationRunsInItsCallersTask() async throws {
        try await addPasses(4)
        let seen = Mutex<[String]>([])
        let transport = ClosureTransport { _, _ throws(TransportError) in
            seen.withLock { $0.append(Self.caller ?? "none") }
            return Self.approved
        }
        let runtime = try await runtime(transport, ActivationRuntime.Options(workers: 2))
        await withTaskGroup(of: Void.self) { group in
            for index in 1...4 {
                group.addTask {
                    await Self.$caller.withValue("caller \(index)") {
                        #expect(
                            await runtime.activate(deeplink: "mybank://activate?serialNumber=SN\(index)")?.outcome
                                == .approved)
                    }
                }
            }
        }
        await runtime.close()
        #expect(seen.withLock { $0.sorted() } == (1...4).map { "caller \($0)" })
    }

    /// Lines queued before a stop and not yet started are withdrawn: the output ends before
    /// the first of them, none is sent, and the summary says the batch stopped early.
    @Test func aStoppedBatchWithdrawsItsQueuedLines() async throws {
        try await addPasses(20)
        let held = HeldTransport()
        let runtime = try await runtime(held.transport(), ActivationRuntime.Options(workers: 2))
        let stop = BatchStop()
        let input = (1...20).map { "mybank://activate?serialNumber=SN\($0)\n" }.joined()
        let chunks = [Array(input.utf8)].async
        let stopper = Task {
            await held.waitForArrivals(2)
            stop.request()
            held.open()
        }
        var emitted: [Int] = []
        let summary = try await runtime.batch(
            chunks, window: 64, decode: { .deeplink($0, dryRun: false) }, isStopping: { stop.isRequested }
        ) { line, result in
            #expect(result.outcome == .approved)
            emitted.append(line)
        }
        await stopper.value
        await runtime.close()
        #expect(summary.stoppedEarly)
        #expect(emitted == [1, 2])
        #expect(held.arrived.load(ordering: .relaxed) == 2)
        await #expect(
            try Wallet(settings: settings()).show(PassQuery(serialNumber: "SN3")).map(\.state) == [.requiresActivation])
    }

    /// Output on the tasks that finish lines (a CLI's): with eight slots finishing lines at once,
    /// every line is emitted once, in input order, and counted.
    @Test func inlineOutputEmitsEveryLineOnceInOrder() async throws {
        let count = 2000
        try await addPasses(count)
        let transport = AnsweringTransport()
        let runtime = try await runtime(transport, ActivationRuntime.Options(workers: 8))
        let input = Array((1...count).map { "mybank://activate?serialNumber=SN\($0)\n" }.joined().utf8)
        // Chunks of 4 KiB, as a file is read.
        let chunks = stride(from: 0, to: input.count, by: 4096).map { Array(input[$0..<min($0 + 4096, input.count)]) }
        var emitted: [Int] = []
        let summary = try await runtime.batch(
            chunks.async, window: 8 * 64, decode: { .deeplink($0, dryRun: false) }, isStopping: { false }
        ) { line, result in
            // Output takes a while (a terminal, a pipe): lines finish meanwhile.
            usleep(20)
            emitted.append(line)
        }
        await runtime.close()
        let missing = Set(1...count).subtracting(emitted).sorted()
        #expect(missing.isEmpty, "lines never emitted: \(missing.prefix(20))")
        #expect(emitted.elementsEqual(1...count), "lines out of order or emitted twice")
        #expect(summary.lines == count && summary.outcomes[.approved] == count)
        #expect(transport.sent.load(ordering: .relaxed) == count)
    }

    /// Blank lines keep their numbers, a line too long or not UTF-8 is its own result, and
    /// results come out in input order.
    @Test func aBatchNumbersLinesAndSettlesBadOnesWithoutAWorker() async throws {
        try await addPasses(3)
        let transport = ClosureTransport { _, _ throws(TransportError) in Self.approved }
        let runtime = try await runtime(transport, ActivationRuntime.Options(workers: 2))
        let long = Array("mybank://activate?serialNumber=\(String(repeating: "9", count: 2100))".utf8)
        let lines: [[UInt8]] = [
            Array("mybank://activate?serialNumber=SN1\r\n".utf8), Array("  \n".utf8), long + [0x0A],
            [0x61, 0xFF, 0x0A],
            Array("mybank://activate?serialNumber=SN2\n".utf8), Array("mybank://activate?serialNumber=SN3".utf8),
        ]
        var emitted: [(Int, ErrorCode?)] = []
        let summary = try await runtime.batch(
            lines.async, window: 2, decode: { .deeplink($0, dryRun: false) }, isStopping: { false }
        ) { line, result in
            emitted.append((line, result.error?.code))
        }
        await runtime.close()
        #expect(emitted.map(\.0) == [1, 3, 4, 5, 6])
        #expect(emitted.map(\.1) == [nil, .deeplinkTooLong, .deeplinkInvalidCharacter, nil, nil])
        #expect(summary.lines == 5 && summary.outcomes[.approved] == 3 && !summary.stoppedEarly)
        #expect(transport.requests.count == 3)
    }
}

/// An array's elements as an async sequence, for a batch's input.
struct ArrayChunks: AsyncSequence, Sendable {
    let chunks: [[UInt8]]

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<[UInt8]>

        mutating func next() async -> [UInt8]? {
            rest.popFirst()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(rest: chunks[...])
    }
}

extension Array where Element == [UInt8] {
    var async: ArrayChunks { ArrayChunks(chunks: self) }
}

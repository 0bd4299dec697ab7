import ErrorCodes
import Hummingbird
import NIOCore
import ServiceAPI
import TokenActivation
import TokenctlApp
import WalletModel

/// A streamed batch: lines read from the request body as they arrive, activated a window
/// at a time on the pipeline's workers, and written out in input order as soon as each
/// line and every line before it are finished. A line the API cannot read is that line's
/// result (`request.invalid`), not the end of the batch.
struct BatchStream: Sendable {
    let service: ActivationService
    let format: BatchFormat

    /// Longer lines are kept to this length, which the parser refuses as `deeplink.tooLong`.
    static let lineLimit = DeeplinkParser.maximumLength + 1

    func run(_ body: RequestBody, write: (_ line: [UInt8]) async throws -> Void) async throws {
        let window = max(2, service.pipeline.workers * 2)
        try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            var finished: [Int: [UInt8]] = [:]
            var nextToWrite = 1
            var running = 0
            var number = 0
            func flush() async throws {
                while let line = finished.removeValue(forKey: nextToWrite) {
                    if !line.isEmpty { try await write(line) }
                    nextToWrite += 1
                }
            }
            func collectOne() async throws {
                if let (line, output) = try await group.next() {
                    running -= 1
                    finished[line] = output
                    try await flush()
                }
            }
            var splitter = LineSplitter(limit: Self.lineLimit)
            func start(_ bytes: [UInt8]) async throws {
                number += 1
                let line = number
                let text = bytes.trimmingSpaces
                if text.isEmpty {
                    finished[line] = []
                    try await flush()
                    return
                }
                while running >= window { try await collectOne() }
                running += 1
                group.addTask { (line, await activate(line: line, text)) }
            }
            // Once draining starts no further line is read (a read waiting for the client is
            // abandoned) and none is started; the lines already started are answered.
            let reader = DrainableBody(body, service: service)
            reading: while let buffer = try await reader.next() {
                for line in splitter.append(buffer.readableBytesView) {
                    if service.isDraining { break reading }
                    try await start(line)
                }
            }
            if !service.isDraining, let last = splitter.finish() { try await start(last) }
            while running > 0 { try await collectOne() }
        }
    }

    private func activate(line: Int, _ bytes: ArraySlice<UInt8>) async -> [UInt8] {
        let result: ActivationResult
        do throws(Problem) {
            let request = try format.request(Array(bytes))
            let service = self.service
            // Each line waits for a slot in the one admission, beside single requests.
            result = await service.admission.run(queueing: true) { await service.activate(request) }
                ?? .notRun(ActivationError(code: .serviceOverloaded, message: "the service is stopping; nothing was sent"))
        } catch {
            result = .notRun(ActivationError(code: error.code, message: error.detail))
        }
        var object = JSONObject(["line": .int(line)])
        object.append(contentsOf: result.json(reveal: false, message: result.error.map(NextStepText.message)))
        return JSONObject.Value.object(object).utf8 + [0x0A]
    }
}

/// A request body read a buffer at a time until the service drains: a read still waiting for
/// the client then ends as the end of the body.
final class DrainableBody: @unchecked Sendable {
    private var iterator: RequestBody.AsyncIterator
    private let service: ActivationService

    init(_ body: RequestBody, service: ActivationService) {
        iterator = body.makeAsyncIterator()
        self.service = service
    }

    /// The next buffer; nil at the end of the body or once the service drains. Called by
    /// one task at a time.
    func next() async throws -> ByteBuffer? {
        if service.isDraining { return nil }
        return try await withThrowingTaskGroup(of: ByteBuffer??.self) { group in
            group.addTask { .some(try await self.iterator.next()) }
            group.addTask { [service] in
                while !service.isDraining { try await Task.sleep(for: .milliseconds(100)) }
                return .none
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first ?? nil
        }
    }
}

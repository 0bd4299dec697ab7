import ErrorCodes
import Hummingbird
import NIOCore
import ServiceAPI
import TextFormats
import TokenActivation
import TokenctlApp
import WalletModel

/// A streamed batch: the request body's lines run as the runtime's batch (the one line
/// reader, admission and ordered output the CLI's batch uses), each line's result written
/// out as soon as it and every line before it are finished. A line the API cannot read is
/// that line's result (`request.invalid`), not the end of the batch.
struct BatchStream: Sendable {
    let service: ActivationService
    let format: BatchFormat

    func run(_ body: RequestBody, write: (_ line: [UInt8]) async throws -> Void) async throws {
        let (service, format) = (self.service, self.format)
        // Once draining starts no further line is read (a read waiting for the client is
        // abandoned) and none is started; the lines already started are answered.
        let summary = try await service.runtime.batch(
            DrainableBody(body: body, service: service), window: max(2, service.runtime.workers * 2),
            decode: { format.batchLine($0) }, isStopping: { service.isDraining }
        ) { line, result in
            var object = JSONObject(["line": .int(line)])
            object.append(contentsOf: result.json(reveal: false, message: result.error.map(NextStepText.message)))
            try await write(JSONObject.Value.object(object).utf8 + [0x0A])
        }
        // A batch cut short by the drain ends with a line that says so (the CLI's "stopped
        // early"): the client sends the lines after `linesRead` again.
        if summary.stoppedEarly {
            let stopped = JSONObject(["stopped": .string("draining"), "linesRead": .int(summary.lines)])
            try await write(JSONObject.Value.object(stopped).utf8 + [0x0A])
        }
    }
}

/// A request body's buffers until the service drains: a read still waiting for the client
/// then ends as the end of the body.
struct DrainableBody: AsyncSequence, Sendable {
    let body: RequestBody
    let service: ActivationService

    func makeAsyncIterator() -> Iterator {
        Iterator(body.makeAsyncIterator(), service: service)
    }

    final class Iterator: AsyncIteratorProtocol, @unchecked Sendable {
        private var iterator: RequestBody.AsyncIterator
        private let service: ActivationService

        init(_ iterator: RequestBody.AsyncIterator, service: ActivationService) {
            self.iterator = iterator
            self.service = service
        }

        /// The next buffer's bytes; nil at the end of the body or once the service drains.
        /// Called by one task at a time.
        func next() async throws -> ByteBufferView? {
            if service.isDraining { return nil }
            return try await withThrowingTaskGroup(of: ByteBuffer??.self) { group in
                group.addTask { .some(try await self.iterator.next()) }
                group.addTask { [service] in
                    while !service.isDraining { try await Task.sleep(for: .milliseconds(100)) }
                    return .none
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return (first ?? nil)?.readableBytesView
            }
        }
    }
}

import Foundation
import Synchronization
import WalletModel

/// Reads and validates an import's rows ahead of the writer, on a serial queue of its own: the
/// import's parsing and its database writes then use two cores instead of taking turns on one,
/// and no cooperative thread waits for the input (a pipe may keep it waiting). Rows, errors and
/// their order are exactly the wrapped source's; at most ``chunksAhead`` chunks are read
/// ahead, so memory stays bounded whatever the input size.
///
/// ``finish()`` must be awaited before the wrapped source's file is closed: it returns once
/// the queue no longer touches the source.
final class ReadAheadRows: Sendable {
    static let rowsPerChunk = 4096
    static let chunksAhead = 2

    /// A chunk as read: its rows, and the end of the input (the error the source threw after
    /// the rows, if any) when it is the last.
    private struct Chunk: Sendable {
        var rows: [ImportedRow]
        var end: Result<Void, any Error>?
    }

    private struct State {
        /// The chunks being read, or read and not yet taken, in input order: the order in which
        /// their reads were put on `queue`.
        var ahead: [OneShot<Chunk>] = []
        /// The rows handed out last, and those before, which the caller is done with: freed on
        /// `queue`, where they were made, off the writer's thread (Benchmarks/README.md).
        var handed: [ImportedRow]?
        var spent: [ImportedRow]?
        var end: Result<Void, any Error>?
    }

    private let queue = DispatchQueue(label: "tokenctl.import")
    /// Touched on `queue` only.
    private nonisolated(unsafe) var source: any ImportRowSource
    /// Whether the source has ended; touched on `queue` only.
    private nonisolated(unsafe) var sourceEnded = false
    /// Chunks read; touched on `queue` only.
    private nonisolated(unsafe) var chunksRead = 0
    private let state = Mutex(State())
    /// Hears of the bytes read after every 16 chunks and at the end, on `queue`.
    private let progress: (@Sendable (_ bytesRead: Int) -> Void)?

    init(_ source: some ImportRowSource, progress: (@Sendable (_ bytesRead: Int) -> Void)? = nil) {
        self.source = source
        self.progress = progress
        state.withLock { state in state.ahead = (0..<Self.chunksAhead).map { _ in read() } }
    }

    /// The next rows, and the read of another chunk starts; nil after the last. The source's
    /// error is thrown after the rows read before it.
    func next() async throws -> [ImportedRow]? {
        let ahead: OneShot<Chunk>? = try state.withLock { state in
            if let end = state.end {
                try end.get()
                return nil
            }
            return state.ahead.isEmpty ? nil : state.ahead.removeFirst()
        }
        guard let ahead else { return nil }
        let chunk = try await ahead.value()
        state.withLock { state in
            state.end = chunk.end
            state.spent = state.handed
            state.handed = chunk.rows
            if chunk.end == nil { state.ahead.append(read()) }
        }
        if chunk.rows.isEmpty {
            try chunk.end?.get()
            return nil
        }
        return chunk.rows
    }

    /// Returns once the queue has finished with the source (no read is started after).
    func finish() async {
        let ahead = state.withLock { state in
            defer {
                state.ahead = []
                state.end = state.end ?? .success(())
            }
            return state.ahead
        }
        for read in ahead { _ = try? await read.value() }
    }

    /// Puts the read of the next chunk on `queue` now (reads run in the order they are put
    /// there, which is the input's); the chunk is awaited, no thread waits for it.
    private func read() -> OneShot<Chunk> {
        let chunk = OneShot<Chunk>()
        queue.async { [self] in
            _ = state.withLock { state in
                defer { state.spent = nil }
                return state.spent
            }
            chunk.give(.success(readChunk()))
        }
        return chunk
    }

    private func readChunk() -> Chunk {
        var chunk = Chunk(rows: [])
        guard !sourceEnded else { return chunk }
        chunk.rows.reserveCapacity(Self.rowsPerChunk)
        do {
            while chunk.rows.count < Self.rowsPerChunk {
                guard let row = try source.next() else {
                    chunk.end = .success(())
                    break
                }
                chunk.rows.append(row)
            }
        } catch {
            chunk.end = .failure(error)
        }
        sourceEnded = chunk.end != nil
        chunksRead += 1
        if chunksRead % 16 == 0 || sourceEnded { progress?(source.bytesConsumed) }
        return chunk
    }
}

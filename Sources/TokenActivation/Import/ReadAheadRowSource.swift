import Foundation
import WalletModel

/// Reads and validates the rows of another source on a thread of its own, a chunk ahead of
/// the caller: the import's parsing and its database writes then use two cores instead of
/// taking turns on one. Rows, errors and their order are exactly the wrapped source's; at
/// most ``chunksAhead`` chunks wait, so memory stays bounded whatever the input size.
///
/// ``finish()`` must be called before the wrapped source's file is closed: it stops the
/// reader and waits for it.
///
/// The caller hands each chunk it has read back to the reader, which empties it and fills it
/// again: the rows' strings are freed on the thread that allocated them, off the writing
/// thread, where freeing them was a large part of the writer's work (Benchmarks/README.md).
///
/// The reader thread touches the wrapped source and, under `condition`, the queues; the
/// caller's thread touches the rest. Hence unchecked.
final class ReadAheadRowSource: ImportRowSource, @unchecked Sendable {
    static let rowsPerChunk = 1024
    static let chunksAhead = 4

    private struct Chunk {
        var rows: [(line: Int, fields: ValidatedPassFields)]
        /// The bytes the source had consumed after the chunk's last row.
        var bytesConsumed: Int
        /// Ends the input: the error the source threw after the chunk's rows, if any.
        var end: Result<Void, any Error>?
    }

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var ready: [Chunk] = []
    /// Chunks the caller has read, for the reader to empty and reuse.
    private var spent: [[(line: Int, fields: ValidatedPassFields)]] = []
    private var stopped = false
    private var readerDone = false

    // The caller's side.
    private var current: Chunk = Chunk(rows: [], bytesConsumed: 0)
    private var position = 0
    private var ended = false
    private(set) var bytesConsumed = 0

    init(_ source: some ImportRowSource) {
        nonisolated(unsafe) var source = source
        Thread.start(named: "tokenctl.import") { [self] in
            defer {
                condition.lock()
                readerDone = true
                condition.broadcast()
                condition.unlock()
            }
            while true {
                var chunk = Chunk(rows: reusableRows(), bytesConsumed: 0)
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
                chunk.bytesConsumed = source.bytesConsumed
                guard hand(chunk), chunk.end == nil else { return }
            }
        }
    }

    /// An empty array for the next chunk: a spent one emptied here, on the reader's thread.
    private func reusableRows() -> [(line: Int, fields: ValidatedPassFields)] {
        condition.lock()
        var rows = spent.popLast() ?? []
        condition.unlock()
        rows.removeAll(keepingCapacity: true)
        return rows
    }

    /// Queues a chunk for the caller, waiting while enough are queued.
    /// - Returns: false once the caller stopped reading.
    private func hand(_ chunk: Chunk) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while ready.count >= Self.chunksAhead && !stopped { condition.wait() }
        guard !stopped else { return false }
        ready.append(chunk)
        condition.broadcast()
        return true
    }

    func next() throws -> (line: Int, fields: ValidatedPassFields)? {
        while position == current.rows.count {
            if ended { return nil }
            if let end = current.end {
                ended = true
                try end.get()
                return nil
            }
            condition.lock()
            while ready.isEmpty { condition.wait() }
            let read = current.rows
            current = ready.removeFirst()
            if spent.count < Self.chunksAhead { spent.append(read) }
            condition.broadcast()
            condition.unlock()
            position = 0
            bytesConsumed = current.bytesConsumed
        }
        defer { position += 1 }
        return current.rows[position]
    }

    /// Stops the reader and waits until it no longer touches the wrapped source.
    func finish() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while !readerDone { condition.wait() }
        condition.unlock()
    }
}

import ErrorCodes
import Glibc

/// Reads a file descriptor in fixed-size chunks, so parsing uses constant memory
/// whatever the input size.
struct ByteReader {
    private let descriptor: Int32
    private let name: String
    private var buffer: [UInt8]
    private let chunkSize: Int
    private var position = 0
    private var end = 0
    private var finished = false
    /// Bytes consumed so far, for progress reporting.
    private(set) var bytesConsumed = 0
    /// Asked while a read waits for input (a pipe, a FIFO, a terminal): when it answers
    /// true, the wait is abandoned and the input ends there.
    private let stopWaiting: (@Sendable () -> Bool)?

    init(descriptor: Int32, name: String, chunkSize: Int = 1 << 16, stopWaiting: (@Sendable () -> Bool)? = nil) {
        self.descriptor = descriptor
        self.name = name
        self.chunkSize = chunkSize
        self.stopWaiting = stopWaiting
        // Room for a whole byte order mark even with tiny chunks.
        self.buffer = [UInt8](repeating: 0, count: max(chunkSize, 4))
    }

    /// The next byte, or nil at the end of the input.
    @inline(__always)
    mutating func next() throws(ImportError) -> UInt8? {
        if position == end {
            guard try refill() else { return nil }
        }
        let byte = buffer[position]
        position += 1
        bytesConsumed += 1
        return byte
    }

    /// What is left of the current chunk, or the next chunk; nil at the end of the input.
    mutating func nextChunk() throws(ImportError) -> ArraySlice<UInt8>? {
        if position == end {
            guard try refill() else { return nil }
        }
        defer {
            bytesConsumed += end - position
            position = end
        }
        return buffer[position..<end]
    }

    /// The next byte without consuming it.
    mutating func peek() throws(ImportError) -> UInt8? {
        if position == end {
            guard try refill() else { return nil }
        }
        return buffer[position]
    }

    /// Consumes `prefix` if the input starts with it (used for a byte order mark).
    /// Call it before anything else is read.
    mutating func skip(prefix: [UInt8]) throws(ImportError) {
        precondition(bytesConsumed == 0 && prefix.count <= buffer.count)
        while end - position < prefix.count, !finished {
            let count = try readChunk(into: end, maximum: buffer.count - end)
            if count == 0 { finished = true } else { end += count }
        }
        guard end - position >= prefix.count, Array(buffer[position..<position + prefix.count]) == prefix else {
            return
        }
        position += prefix.count
        bytesConsumed += prefix.count
    }

    private mutating func refill() throws(ImportError) -> Bool {
        if finished { return false }
        let count = try readChunk(into: 0, maximum: chunkSize)
        if count == 0 {
            finished = true
            return false
        }
        position = 0
        end = count
        return true
    }

    private mutating func readChunk(into offset: Int, maximum: Int) throws(ImportError) -> Int {
        if let stopWaiting {
            // Waits in slices, so that a stop is seen while nothing arrives.
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            while poll(&waiting, 1, 100) == 0 || (errno == EINTR && waiting.revents == 0) {
                if stopWaiting() { return 0 }
            }
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + offset, maximum) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw .unreadable(name, SystemError.text())
        }
    }
}

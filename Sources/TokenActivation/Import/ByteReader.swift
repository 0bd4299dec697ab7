import Glibc

/// Reads a file descriptor in fixed-size chunks, so parsing uses constant memory
/// whatever the input size.
struct ByteReader {
    private let descriptor: Int32
    private let name: String
    private var buffer: [UInt8]
    private var position = 0
    private var end = 0
    private var finished = false
    /// Bytes consumed so far, for progress reporting.
    private(set) var bytesConsumed = 0

    init(descriptor: Int32, name: String, chunkSize: Int = 1 << 16) {
        self.descriptor = descriptor
        self.name = name
        self.buffer = [UInt8](repeating: 0, count: chunkSize)
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

    /// The next byte without consuming it.
    mutating func peek() throws(ImportError) -> UInt8? {
        if position == end {
            guard try refill() else { return nil }
        }
        return buffer[position]
    }

    /// Consumes `prefix` if the input starts with it (used for a byte order mark).
    mutating func skip(prefix: [UInt8]) throws(ImportError) {
        if position == end {
            guard try refill() else { return }
        }
        guard end - position >= prefix.count, Array(buffer[position..<position + prefix.count]) == prefix else { return }
        position += prefix.count
        bytesConsumed += prefix.count
    }

    private mutating func refill() throws(ImportError) -> Bool {
        if finished { return false }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                position = 0
                end = count
                return true
            }
            if count == 0 {
                finished = true
                return false
            }
            if errno == EINTR { continue }
            throw .unreadable(name, String(cString: strerror(errno)))
        }
    }
}

/// Splits a byte stream into lines (LF or CRLF), with a cap on the line length so that
/// memory stays bounded on hostile input.
struct LineReader {
    static let maxLineBytes = 1 << 16

    private var reader: ByteReader
    private var line = 0
    private var buffer: [UInt8] = []

    init(reader: ByteReader) {
        self.reader = reader
    }

    var bytesConsumed: Int { reader.bytesConsumed }

    /// The next line without its terminator, and its 1-based number.
    mutating func next() throws(ImportError) -> (line: Int, bytes: [UInt8])? {
        buffer.removeAll(keepingCapacity: true)
        var sawAny = false
        while let byte = try reader.next() {
            sawAny = true
            if byte == 0x0A { break }
            guard buffer.count < Self.maxLineBytes else {
                throw .invalidRow(line: line + 1, "a line is longer than \(Self.maxLineBytes) bytes")
            }
            buffer.append(byte)
        }
        guard sawAny else { return nil }
        line += 1
        if buffer.last == 0x0D { buffer.removeLast() }
        return (line, buffer)
    }
}

/// Splits a byte stream into lines (LF, with an optional CR before it), keeping at most
/// `limit` bytes of each: the one line reader of every batch, the CLI's and the service's.
public struct LineSplitter {
    public let limit: Int
    private var current: [UInt8] = []

    public init(limit: Int) {
        self.limit = limit
    }

    /// The lines `bytes` completes, without their LF.
    public mutating func append(_ bytes: some Sequence<UInt8>) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for byte in bytes {
            if byte == 0x0A {
                lines.append(current)
                current.removeAll(keepingCapacity: true)
            } else if current.count < limit {
                current.append(byte)
            }
        }
        return lines
    }

    /// The last line when the stream did not end with a newline.
    public mutating func finish() -> [UInt8]? {
        defer { current = [] }
        return current.isEmpty ? nil : current
    }
}

extension Array where Element == UInt8 {
    /// Without leading and trailing spaces, tabs and carriage returns.
    public var trimmingSpaces: ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return []
        }
        return self[first...last]
    }
}

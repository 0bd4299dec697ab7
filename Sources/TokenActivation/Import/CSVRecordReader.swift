/// A streaming RFC 4180 CSV reader: comma-separated, fields optionally in double quotes
/// (a doubled quote is a literal quote, quoted fields may span lines), LF or CRLF line
/// ends, an optional UTF-8 byte order mark, blank lines skipped. Strict: a quote inside
/// an unquoted field or text after a closing quote is an error, as is invalid UTF-8.
struct CSVRecordReader {
    /// One record and the line it starts on.
    struct Record {
        var line: Int
        var fields: [String]
    }

    static let maxFieldBytes = 4096
    static let maxFields = 64

    private var reader: ByteReader
    private var line = 1
    private var field: [UInt8] = []
    private var atStart = true

    init(reader: ByteReader) {
        self.reader = reader
        field.reserveCapacity(256)
    }

    var bytesConsumed: Int { reader.bytesConsumed }

    private enum State { case fieldStart, unquoted, quoted, afterQuote }

    mutating func next() throws(ImportError) -> Record? {
        if atStart {
            atStart = false
            try skipByteOrderMark()
        }
        while true {
            let startLine = line
            var fields: [String] = []
            var state = State.fieldStart
            while true {
                guard let byte = try reader.next() else {
                    if state == .quoted {
                        throw .invalidRow(line: startLine, "a quoted value is not closed")
                    }
                    if fields.isEmpty && state == .fieldStart { return nil }
                    try finishField(into: &fields, line: startLine)
                    return Record(line: startLine, fields: fields)
                }
                switch state {
                case .quoted:
                    if byte == 0x22 {
                        state = .afterQuote
                    } else {
                        if byte == 0x0A { line += 1 }
                        try append(byte, line: startLine)
                    }
                    continue
                case .afterQuote:
                    if byte == 0x22 {
                        try append(byte, line: startLine)
                        state = .quoted
                        continue
                    }
                case .fieldStart:
                    if byte == 0x22 {
                        state = .quoted
                        continue
                    }
                case .unquoted:
                    if byte == 0x22 {
                        throw .invalidRow(
                            line: startLine, "a double quote inside an unquoted value (quote the whole value)")
                    }
                }
                // Outside quotes: separators, line ends, or ordinary bytes.
                if byte == 0x2C {
                    try finishField(into: &fields, line: startLine)
                    state = .fieldStart
                } else if byte == 0x0A || byte == 0x0D {
                    if byte == 0x0D, try reader.peek() == 0x0A { _ = try reader.next() }
                    line += 1
                    if fields.isEmpty && state == .fieldStart { break }  // blank line
                    try finishField(into: &fields, line: startLine)
                    return Record(line: startLine, fields: fields)
                } else if state == .afterQuote {
                    throw .invalidRow(line: startLine, "text after a closing double quote")
                } else {
                    try append(byte, line: startLine)
                    state = .unquoted
                }
            }
        }
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8, line: Int) throws(ImportError) {
        guard field.count < Self.maxFieldBytes else {
            throw .invalidRow(line: line, "a value is longer than \(Self.maxFieldBytes) bytes")
        }
        field.append(byte)
    }

    private mutating func finishField(into fields: inout [String], line: Int) throws(ImportError) {
        guard fields.count < Self.maxFields else {
            throw .invalidRow(line: line, "more than \(Self.maxFields) fields")
        }
        guard let text = String(checkedUTF8: field) else {
            throw .invalidRow(line: line, "invalid UTF-8")
        }
        fields.append(text)
        field.removeAll(keepingCapacity: true)
    }

    private mutating func skipByteOrderMark() throws(ImportError) {
        try reader.skip(prefix: [0xEF, 0xBB, 0xBF])
    }
}

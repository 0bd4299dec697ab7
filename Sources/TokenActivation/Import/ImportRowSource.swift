import Foundation
import WalletModel

/// Turns an import file into validated rows, one at a time.
protocol ImportRowSource {
    /// The next row and its line number, or nil at the end.
    mutating func next() throws -> (line: Int, fields: ValidatedPassFields)?
    var bytesConsumed: Int { get }
}

/// CSV with a header row naming the pass keys (`serialNumber` and
/// `deviceAccountIdentifier` required). An empty cell means "not given".
struct CSVRowSource: ImportRowSource {
    private var records: CSVRecordReader
    private var columns: [PassRecordFields.Name] = []

    init(reader: ByteReader) throws(ImportError) {
        records = CSVRecordReader(reader: reader)
        guard let header = try records.next() else {
            throw .invalidHeader(
                line: 1, "the file is empty; expected a header row such as serialNumber,deviceAccountIdentifier")
        }
        for name in header.fields {
            guard let column = PassRecordFields.Name(rawValue: name) else {
                throw .invalidHeader(line: header.line, "unknown column \"\(name)\"; columns are \(Self.columnList)")
            }
            guard !columns.contains(column) else {
                throw .invalidHeader(line: header.line, "column \(name) appears twice")
            }
            columns.append(column)
        }
        for required in [PassRecordFields.Name.serialNumber, .deviceAccountIdentifier] where !columns.contains(required)
        {
            throw .invalidHeader(line: header.line, "the header lacks the required column \(required.rawValue)")
        }
    }

    static let columnList = PassRecordFields.Name.allCases.map(\.rawValue).joined(separator: ", ")

    var bytesConsumed: Int { records.bytesConsumed }

    mutating func next() throws -> (line: Int, fields: ValidatedPassFields)? {
        guard let record = try records.next() else { return nil }
        guard record.fields.count == columns.count else {
            throw ImportError.invalidRow(
                line: record.line, "expected \(columns.count) fields as in the header, found \(record.fields.count)")
        }
        var fields = PassRecordFields()
        for (column, value) in zip(columns, record.fields) where !value.isEmpty {
            fields[column] = value
        }
        return (record.line, try validate(fields, line: record.line))
    }
}

/// JSON Lines: one object a line whose keys are the pass keys and whose values are
/// strings or null (an empty string counts as null). Blank lines are skipped.
struct JSONLinesRowSource: ImportRowSource {
    private var lines: LineReader
    private let decoder = JSONDecoder()

    init(reader: ByteReader) {
        lines = LineReader(reader: reader)
    }

    var bytesConsumed: Int { lines.bytesConsumed }

    mutating func next() throws -> (line: Int, fields: ValidatedPassFields)? {
        while let (line, bytes) = try lines.next() {
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            guard String(checkedUTF8: bytes) != nil else {
                throw ImportError.invalidRow(line: line, "invalid UTF-8")
            }
            let object: [String: String?]
            do {
                object = try decoder.decode([String: String?].self, from: Data(bytes))
            } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
                throw ImportError.invalidRow(
                    line: line, "\(context.codingPath[0].stringValue) must be a string or null")
            } catch {
                throw ImportError.invalidRow(line: line, "not a JSON object")
            }
            var fields = PassRecordFields()
            for (key, value) in object {
                guard let name = PassRecordFields.Name(rawValue: key) else {
                    throw ImportError.invalidRow(
                        line: line, "unknown key \"\(key)\"; keys are \(CSVRowSource.columnList)")
                }
                if let value, !value.isEmpty { fields[name] = value }
            }
            return (line, try validate(fields, line: line))
        }
        return nil
    }
}

private func validate(_ fields: PassRecordFields, line: Int) throws(ImportError) -> ValidatedPassFields {
    do {
        return try PassRecordValidation.validate(fields)
    } catch {
        throw .invalidRow(line: line, error.message)
    }
}

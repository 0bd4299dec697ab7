import NIOCore
import PostgresNIO

/// A row's cells by column name.
struct NamedCells {
    private let cells: PostgresRandomAccessRow

    init(_ row: PostgresRow) {
        cells = row.makeRandomAccess()
    }

    subscript<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) -> T {
        get throws { try cells[column].decode(T.self) }
    }

    func bytes(_ column: String) throws -> [UInt8] {
        try cells[column].decode(ByteBuffer.self).readableBytesView.map { $0 }
    }

    func optionalBytes(_ column: String) throws -> [UInt8]? {
        try cells[column].decode(ByteBuffer?.self).map { Array($0.readableBytesView) }
    }
}

import Logging
import NIOCore
import PostgresNIO
import WalletModel

/// The onboarding core's state on PostgreSQL: the same statements as on SQLite, each in a
/// transaction of its own on a pooled connection.
extension PostgresStore: StateDatabase {
    /// A transaction as a write is: PostgreSQL's reads in it see one snapshot per statement,
    /// and the state's reads are single statements.
    public func readState<T>(_ body: (any StateStatements) throws -> T) throws -> T {
        try writeState(body)
    }

    public func writeState<T>(_ body: (any StateStatements) throws -> T) throws -> T {
        try transaction { connection in try body(PostgresStatements(connection: connection, logger: logger)) }
    }
}

/// Runs the state's statements: `?` placeholders numbered as PostgreSQL's `$1, $2, …`, and
/// values bound as text, bigint or bytea.
struct PostgresStatements: StateStatements {
    let connection: PostgresConnection
    let logger: Logger

    func rows(_ sql: String, _ arguments: [StateValue]) throws -> [StateRow] {
        try run(sql, arguments).rows.map { row in
            var values: [String: StateValue] = [:]
            for cell in row {
                values[cell.columnName] = try Self.value(cell)
            }
            return StateRow(values)
        }
    }

    func execute(_ sql: String, _ arguments: [StateValue]) throws -> Int {
        try run(sql, arguments).metadata.rows ?? 0
    }

    private func run(_ sql: String, _ arguments: [StateValue]) throws -> PostgresQueryResult {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .text(let text): bindings.append(text)
            case .bytes(let bytes): bindings.append(ByteBuffer(bytes: bytes))
            }
        }
        return try connection.answer(PostgresQuery(unsafeSQL: Self.numbered(sql), binds: bindings), logger)
    }

    /// `sql` with each `?` replaced by `$n`, in order. The statements are tokenctl's own and
    /// hold no `?` inside a literal.
    static func numbered(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var index = 0
        for character in sql {
            if character == "?" {
                index += 1
                result += "$\(index)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    private static func value(_ cell: PostgresCell) throws -> StateValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2: return .integer(Int64(try cell.decode(Int16.self)))
        case .int4: return .integer(Int64(try cell.decode(Int32.self)))
        case .int8: return .integer(try cell.decode(Int64.self))
        case .bytea: return .bytes(Array(buffer: try cell.decode(ByteBuffer.self)))
        default: return .text(try cell.decode(String.self))
        }
    }
}

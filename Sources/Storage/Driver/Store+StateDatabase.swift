import GRDB
import WalletModel

import Foundation

extension Store: StateDatabase {
    public func readState<T>(_ body: (any StateStatements) throws -> T) throws -> T {
        try read { db in try body(SQLiteStatements(db)) }
    }

    public func writeState<T>(_ body: (any StateStatements) throws -> T) throws -> T {
        try write { db in try body(SQLiteStatements(db)) }
    }
}

/// The onboarding state's statements on a GRDB connection (inside a transaction the
/// caller runs).
public struct SQLiteStatements: StateStatements {
    let db: Database

    public init(_ db: Database) {
        self.db = db
    }

    public func rows(_ sql: String, _ arguments: [StateValue]) throws -> [StateRow] {
        try Row.fetchAll(db, sql: sql, arguments: Self.arguments(arguments)).map { row in
            var values: [String: StateValue] = [:]
            for (column, value) in row {
                values[column] = switch value.storage {
                case .null: .null
                case .int64(let integer): .integer(integer)
                case .double(let double): .integer(Int64(double))
                case .string(let text): .text(text)
                case .blob(let data): .bytes(Array(data))
                }
            }
            return StateRow(values)
        }
    }

    public func execute(_ sql: String, _ arguments: [StateValue]) throws -> Int {
        try db.execute(sql: sql, arguments: Self.arguments(arguments))
        return db.changesCount
    }

    private static func arguments(_ values: [StateValue]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .null: nil
            case .integer(let integer): integer
            case .text(let text): text
            case .bytes(let bytes): Data(bytes)
            }
        })
    }
}

/// A database the onboarding core keeps its state in (device activation, onboarding
/// process, PIN login user, identity verification): the SQLite file (``Store``) or the
/// fleet's PostgreSQL database. Its statements are written once, in the SQL both speak
/// (`?` placeholders, `INSERT … ON CONFLICT`), and run through this interface.
public protocol StateDatabase: Sendable {
    /// Runs `body` on a consistent snapshot.
    func readState<T>(_ body: (any StateStatements) throws -> T) throws -> T
    /// Runs `body` in one transaction, rolled back when it throws.
    func writeState<T>(_ body: (any StateStatements) throws -> T) throws -> T
    /// Closes the database (a store a caller opened for one call).
    func close() throws
}

extension StateDatabase {
    /// Runs `body`, then closes this database, also when `body` throws.
    public func closing<T>(after body: () throws -> T) throws -> T {
        do {
            let result = try body()
            try close()
            return result
        } catch {
            try? close()
            throw error
        }
    }

    /// Runs `body`, then closes this database, also when `body` throws.
    public func closing<T>(after body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            try close()
            return result
        } catch {
            try? close()
            throw error
        }
    }
}

/// Statements inside one ``StateDatabase`` transaction.
public protocol StateStatements {
    /// The rows `sql` selects.
    func rows(_ sql: String, _ arguments: [StateValue]) throws -> [StateRow]
    /// Runs `sql`; the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [StateValue]) throws -> Int
}

extension StateStatements {
    /// The first row `sql` selects, if any.
    public func row(_ sql: String, _ arguments: [StateValue]) throws -> StateRow? {
        try rows(sql, arguments).first
    }
}

/// A value bound to a statement or read from a row.
public enum StateValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    case bytes([UInt8])

    public init(_ text: String?) { self = text.map(StateValue.text) ?? .null }
    public init(_ integer: Int?) { self = integer.map { .integer(Int64($0)) } ?? .null }
    public init(_ bytes: [UInt8]?) { self = bytes.map(StateValue.bytes) ?? .null }
}

/// One row, by column name.
public struct StateRow: Sendable {
    public var values: [String: StateValue]

    public init(_ values: [String: StateValue]) {
        self.values = values
    }

    public func text(_ column: String) -> String? {
        if case .text(let text) = values[column] { return text }
        return nil
    }

    public func integer(_ column: String) -> Int? {
        if case .integer(let integer) = values[column] { return Int(integer) }
        return nil
    }

    public func bytes(_ column: String) -> [UInt8]? {
        if case .bytes(let bytes) = values[column] { return bytes }
        return nil
    }
}

import GRDB
import GRDBSQLite

/// Binds and steps a cached statement through the SQLite C API. For the statements run
/// once per imported row or per activation, where GRDB's argument boxing and checks cost
/// more than the statement itself (measured: Benchmarks/wallet.sh, make bench-activation).
struct DirectStatement {
    private let handle: OpaquePointer
    private let db: Database

    /// Resets the statement and clears its bindings.
    init(_ statement: Statement, _ db: Database) {
        handle = statement.sqliteStatement
        self.db = db
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds text (copied by SQLite) or NULL to the 1-based parameter `index`.
    func bind(_ index: Int32, _ value: String?) {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withUTF8 { bytes in
            // An empty buffer may have no address, and a null pointer would bind NULL.
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                sqlite3_bind_text(handle, index, "", 0, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                return
            }
            base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                _ = sqlite3_bind_text(
                    handle, index, $0, Int32(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            }
        }
    }

    /// Binds an integer or NULL.
    func bind(_ index: Int32, _ value: Int?) {
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        sqlite3_bind_int64(handle, index, sqlite3_int64(value))
    }

    /// Binds bytes (copied by SQLite) as a blob.
    func bind(_ index: Int32, blob: [UInt8]) {
        blob.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(
                handle, index, bytes.baseAddress, Int32(bytes.count),
                unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }

    /// Steps through the statement's rows, handing each to `body`, then resets it.
    func forEachRow(_ body: (Row) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: try body(Row(handle: handle))
            case SQLITE_DONE: return
            case let code: throw failure(code)
            }
        }
    }

    /// The current row of a stepping statement; valid only inside ``forEachRow(_:)``'s body.
    struct Row {
        fileprivate let handle: OpaquePointer

        /// The text of the 0-based column `index`, or nil when it is NULL.
        func text(_ index: Int32) -> String? {
            guard let bytes = sqlite3_column_text(handle, index) else { return nil }
            return String(
                decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, index))),
                as: UTF8.self)
        }
    }

    /// Steps the statement to completion.
    /// - Returns: the number of rows it changed.
    func run() throws -> Int {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let error = failure(code)
            sqlite3_reset(handle)
            throw error
        }
        sqlite3_reset(handle)
        return Int(sqlite3_changes(db.sqliteConnection))
    }

    /// The error of a step that answered `code`; read before the statement is reset.
    private func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }
}

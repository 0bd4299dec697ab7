import NIOCore
import PostgresNIO

/// A `pass_record` row as stored; the wallet layer gives it meaning.
public struct PassRow: Sendable, Equatable {
    public var passTypeIdentifier: String
    public var serialNumber: String
    public var deviceAccountIdentifier: String
    public var state: String
    public var device: String?
    public var cardSuffix: String?

    public init(passTypeIdentifier: String, serialNumber: String, deviceAccountIdentifier: String, state: String, device: String?, cardSuffix: String?) {
        self.passTypeIdentifier = passTypeIdentifier
        self.serialNumber = serialNumber
        self.deviceAccountIdentifier = deviceAccountIdentifier
        self.state = state
        self.device = device
        self.cardSuffix = cardSuffix
    }
}

/// What an insert met.
public enum PassInsert: Sendable, Equatable {
    case inserted
    /// The same (pass type, serial, device account id) is stored.
    case duplicate
    /// Another record holds the (pass type, serial, device label).
    case conflict
}

/// The counts of an import's upsert.
public struct PassImportCounts: Sendable, Equatable {
    public var inserted: Int
    public var updated: Int
    public var unchanged: Int
    /// Stored `activated` / `activating` states the file would have moved back, kept.
    public var keptStates: Int
}

extension PostgresStore {
    static let passColumns = "pass_type_identifier, serial_number, device_account_identifier, state, device_label, card_suffix"
    static let passOrder = "ORDER BY serial_number, pass_type_identifier, device_account_identifier"

    public func insertPass(_ row: PassRow) throws -> PassInsert {
        do {
            try query("""
                INSERT INTO pass_record (pass_type_identifier, serial_number, device_account_identifier, state, device_label, card_suffix)
                VALUES (\(row.passTypeIdentifier), \(row.serialNumber), \(row.deviceAccountIdentifier), \(row.state), \(row.device), \(row.cardSuffix))
                """)
            return .inserted
        } catch where Self.sqlState(error) == State.uniqueViolation {
            let same = try query("""
                SELECT 1 FROM pass_record WHERE serial_number = \(row.serialNumber)
                AND pass_type_identifier = \(row.passTypeIdentifier) AND device_account_identifier = \(row.deviceAccountIdentifier)
                """)
            return same.isEmpty ? .conflict : .duplicate
        }
    }

    /// The records of a serial, narrowed by pass type and device label when given.
    public func passes(serialNumber: String, passTypeIdentifier: String?, device: String?) throws -> [PassRow] {
        try query("""
            SELECT \(unescaped: Self.passColumns) FROM pass_record
            WHERE serial_number = \(serialNumber) AND (\(passTypeIdentifier)::text IS NULL OR pass_type_identifier = \(passTypeIdentifier))
              AND (\(device)::text IS NULL OR device_label = \(device))
            \(unescaped: Self.passOrder)
            """).map(Self.passRow)
    }

    public func deletePass(_ row: PassRow) throws {
        try query("""
            DELETE FROM pass_record WHERE serial_number = \(row.serialNumber)
            AND pass_type_identifier = \(row.passTypeIdentifier) AND device_account_identifier = \(row.deviceAccountIdentifier)
            """)
    }

    public func passCount() throws -> Int {
        try query("SELECT count(*) FROM pass_record").first?.decode(Int.self) ?? 0
    }

    /// Streams the records (or those in one state) in serial order, 10,000 at a time through a
    /// cursor, from one snapshot.
    public func forEachPass(state: String?, _ body: (PassRow) throws -> Void) throws {
        try streaming("""
            SELECT \(unescaped: Self.passColumns) FROM pass_record
            WHERE \(state)::text IS NULL OR state = \(state) \(unescaped: Self.passOrder)
            """) { row in try body(try Self.passRow(row)) }
    }

    static func passRow(_ row: PostgresRow) throws -> PassRow {
        let (type, serial, account, state, device, suffix) = try row.decode((String, String, String, String, String?, String?).self)
        return PassRow(passTypeIdentifier: type, serialNumber: serial, deviceAccountIdentifier: account, state: state, device: device, cardSuffix: suffix)
    }
}

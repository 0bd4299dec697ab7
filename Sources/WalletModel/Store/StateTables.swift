/// The onboarding core's tables, the same on both backends (SQLite migrations v3–v6,
/// PostgreSQL's v2): what `tokenctl db copy` moves besides the wallet and the audit.
public enum StateTables {
    public static let names = ["powerauth_activation", "onboarding_process", "login_user", "identity_verification"]

    /// The tables among ``names`` that hold rows.
    public static func held(_ db: any StateStatements) throws -> [String] {
        try names.filter { table in try db.row("SELECT count(*) AS n FROM \(table)", [])?.integer("n") ?? 0 > 0 }
    }

    /// Copies every row of the tables from `source` into `target` (columns by name); the
    /// number of rows copied.
    public static func copy(from source: any StateDatabase, into target: any StateStatements) throws -> Int {
        var copied = 0
        for table in names {
            for row in try source.readState({ try $0.rows("SELECT * FROM \(table)", []) }) {
                let columns = row.values.keys.sorted()
                try target.execute(
                    "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                    columns.map { row.values[$0] ?? .null }
                )
                copied += 1
            }
        }
        return copied
    }
}

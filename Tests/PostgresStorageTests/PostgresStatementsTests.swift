@testable import PostgresStorage
import Testing

/// The onboarding state's statements are written with `?`; PostgreSQL numbers them.
@Suite struct PostgresStatementsTests {
    @Test(arguments: [
        ("SELECT 1", "SELECT 1"),
        ("DELETE FROM t WHERE a = ?", "DELETE FROM t WHERE a = $1"),
        ("INSERT INTO t (a, b, c) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", "INSERT INTO t (a, b, c) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING"),
        ("UPDATE t SET a = ?, b = ? WHERE é = ?", "UPDATE t SET a = $1, b = $2 WHERE é = $3"),
    ])
    func placeholdersAreNumberedInOrder(_ sql: String, _ expected: String) {
        #expect(PostgresStatements.numbered(sql) == expected)
    }
}

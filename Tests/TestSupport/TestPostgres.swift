import Foundation

/// The private PostgreSQL server `make test` starts (scripts/test-postgres.sh): each test
/// gets a database of its own on it, made and dropped with psql.
public enum TestPostgres {
    /// `TOKENCTL_TEST_DATABASE_URL`: the server's `tokenctl` database, as tokenctl spells a URL.
    public static var baseURL: String? { ProcessInfo.processInfo.environment["TOKENCTL_TEST_DATABASE_URL"] }
    public static var password: String {
        ProcessInfo.processInfo.environment["TOKENCTL_TEST_DATABASE_PASSWORD"] ?? "tokenctl"
    }
    /// The CA that signs the test server's TLS certificate (for localhost and 127.0.0.1).
    public static var caFile: String? { ProcessInfo.processInfo.environment["TOKENCTL_TEST_DATABASE_CA"] }

    public struct Database: Sendable {
        /// The URL tokenctl takes (`database.url`); the password goes in `TOKENCTL_DATABASE_PASSWORD`.
        public let url: String
        public let name: String
        /// The environment that points tokenctl at this database.
        public var environment: [String: String] {
            ["TOKENCTL_DATABASE_URL": url, "TOKENCTL_DATABASE_PASSWORD": TestPostgres.password]
        }

        /// Runs SQL as the application role with psql, an independent client.
        @discardableResult
        public func psql(_ sql: String) throws -> (status: Int32, output: String) {
            try TestPostgres.psql(database: name, sql)
        }
    }

    /// A new, empty database.
    public static func makeDatabase() throws -> Database {
        guard let base = baseURL else {
            throw Unavailable()
        }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        let created = try psql(database: "tokenctl", "CREATE DATABASE \(name)")
        guard created.status == 0 else { throw Unavailable(detail: created.output) }
        let prefix = base[..<base.range(of: "/tokenctl?")!.lowerBound]
        return Database(url: "\(prefix)/\(name)?sslmode=disable", name: String(name))
    }

    /// host and port of the test server, from the URL.
    static var hostAndPort: (String, String) {
        let authority = baseURL!.split(separator: "@")[1].split(separator: "/")[0]
        let parts = authority.split(separator: ":")
        return (String(parts[0]), String(parts[1]))
    }

    static func psql(database: String, _ sql: String) throws -> (status: Int32, output: String) {
        let (host, port) = hostAndPort
        return try runProgram(
            "/usr/bin/psql",
            [
                "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port, "-U", "tokenctl", "-d", database,
                "-c", sql,
            ],
            environment: ["PGPASSWORD": password, "PATH": "/usr/bin:/bin"]
        )
    }

    public struct Unavailable: Error, CustomStringConvertible {
        var detail = "TOKENCTL_TEST_DATABASE_URL is not set"
        public var description: String {
            "no test PostgreSQL (\(detail)); run the tests with make test, or eval \"$(scripts/test-postgres.sh start)\" first"
        }
    }
}

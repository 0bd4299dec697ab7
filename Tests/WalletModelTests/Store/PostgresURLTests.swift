import Testing
import WalletModel

/// `database.url`: what it accepts, with its parts, and what it refuses, with the reason.
@Suite struct PostgresURLTests {
    struct Accepted: Sendable, CustomTestStringConvertible {
        let text: String
        let host: String
        let port: Int
        let user: String
        let database: String
        let tls: PostgresOptions.TLSMode
        var testDescription: String { text }
    }

    @Test(arguments: [
        Accepted(
            text: "postgres://tokenctl@db.example.com/tokenctl", host: "db.example.com", port: 5432, user: "tokenctl",
            database: "tokenctl", tls: .verifyFull),
        Accepted(
            text: "postgresql://app@10.0.0.5:6432/wallet?sslmode=verify-ca", host: "10.0.0.5", port: 6432, user: "app",
            database: "wallet", tls: .verifyCA),
        Accepted(
            text: "postgres://app@[::1]:5433/w?sslmode=disable", host: "::1", port: 5433, user: "app", database: "w",
            tls: .disable),
        Accepted(
            text: "postgres://app@[fe80::1]/w?sslmode=require", host: "fe80::1", port: 5432, user: "app", database: "w",
            tls: .require),
        Accepted(
            text: "postgres://us%40er@h/d%2Dx", host: "h", port: 5432, user: "us@er", database: "d-x", tls: .verifyFull),
    ])
    func accepts(_ expected: Accepted) throws {
        let url = try PostgresURL(parsing: expected.text)
        #expect(url.host == expected.host)
        #expect(url.port == expected.port)
        #expect(url.user == expected.user)
        #expect(url.database == expected.database)
        #expect(url.tls == expected.tls)
    }

    @Test(arguments: [
        ("mysql://u@h/d", "it must start with postgres://"),
        ("postgres://u@h", "it names no database"),
        ("postgres://u@h/", "it names no database"),
        ("postgres://h/d", "it names no user"),
        ("postgres://u:secret@h/d", "it holds a password"),
        ("postgres://u@/d", "it names no host"),
        ("postgres://u@h:port/d", "its port is not a number"),
        ("postgres://u@h:70000/d", "its port is outside 1–65535"),
        ("postgres://u@[::1/d", "its IPv6 host has no closing ]"),
        ("postgres://u@h/d?sslmode=prefer", "its sslmode must be disable, require, verify-ca or verify-full"),
        ("postgres://u@h/d?password=x", "it has the parameter password"),
        ("postgres://u%zz@h/d", "its user has a bad percent-encoding"),
        ("postgres://u@10.0.0.5/d", "sslmode=verify-full needs a host name"),
        ("postgres://u@[::1]/d?sslmode=verify-full", "sslmode=verify-full needs a host name"),
        ("postgres://u@h/d%ff", "its database has a bad percent-encoding"),
    ])
    func refuses(_ text: String, _ reason: String) {
        #expect(throws: PostgresURLError.self) { try PostgresURL(parsing: text) }
        do {
            _ = try PostgresURL(parsing: text)
        } catch {
            #expect(error.reason.hasPrefix(reason), "\(error.reason)")
            #expect(!error.reason.contains("secret"))
        }
    }

    @Test func theDisplayedURLHasNoPassword() {
        let options = PostgresOptions(
            host: "h", port: 5433, user: "u", database: "d", tls: .verifyCA, password: "secret", hostID: "a")
        #expect(options.displayURL == "postgres://u@h:5433/d?sslmode=verify-ca")
    }
}

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
        ("postgres://u@h1,,h2/d", "it names no host"),
        ("postgres://u@h1,/d", "it names no host"),
        ("postgres://u@h1,h2:x/d", "its port is not a number"),
        (
            "postgres://u@h1,10.0.0.5/d",
            "sslmode=verify-full needs a host name (the server's certificate is checked against it, and TLS cannot send an IP address as the name): 10.0.0.5"
        ),
        (
            "postgres://u@h/d?target_session_attrs=standby",
            "its target_session_attrs must be read-write, any or prefer-standby"
        ),
        ("postgres://u@h/d?target_session_attrs", "it has the parameter target_session_attrs"),
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

    /// Several hosts, in order, as libpq takes them; `target_session_attrs`.
    @Test func severalHostsKeepTheirOrderAndPorts() throws {
        let url = try PostgresURL(
            parsing: "postgres://app@db1.example:6432,[::1],db3.example/w?sslmode=verify-ca&target_session_attrs=any")
        #expect(
            url.endpoints == [
                PostgresEndpoint(host: "db1.example", port: 6432), PostgresEndpoint(host: "::1", port: 5432),
                PostgresEndpoint(host: "db3.example", port: 5432),
            ])
        #expect(url.targetSessionAttributes == .any)
        #expect(url.tls == .verifyCA)
        #expect(try PostgresURL(parsing: "postgres://u@h/d").targetSessionAttributes == .readWrite)
        let standby = try PostgresURL(parsing: "postgres://u@a,b/d?target_session_attrs=prefer-standby")
        #expect(standby.targetSessionAttributes == .preferStandby)
        #expect(standby.endpoints.map(\.host) == ["a", "b"])
    }

    @Test func theDisplayedURLNamesEveryHost() {
        var options = PostgresOptions(
            endpoints: [PostgresEndpoint(host: "a", port: 5432), PostgresEndpoint(host: "::1", port: 5433)], user: "u",
            database: "d", hostID: "x")
        #expect(options.displayURL == "postgres://u@a:5432,[::1]:5433/d?sslmode=verify-full")
        options.targetSessionAttributes = .any
        #expect(options.displayURL == "postgres://u@a:5432,[::1]:5433/d?sslmode=verify-full&target_session_attrs=any")
    }

    @Test func theDisplayedURLHasNoPassword() {
        let options = PostgresOptions(
            host: "h", port: 5433, user: "u", database: "d", tls: .verifyCA, password: "secret", hostID: "a")
        #expect(options.displayURL == "postgres://u@h:5433/d?sslmode=verify-ca")
    }
}

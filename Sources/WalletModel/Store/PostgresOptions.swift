import ErrorCodes
import Glibc
import HexCoding

/// Where and how to reach the PostgreSQL database (`database.url` and the keys beside it).
public struct PostgresOptions: Sendable, Equatable {
    public enum TLSMode: String, Sendable, Equatable {
        /// No TLS (a server on loopback or a private socket only).
        case disable
        /// TLS, the server's certificate not checked.
        case require
        /// TLS, the certificate checked against the CA, the host name not.
        case verifyCA = "verify-ca"
        /// TLS, the certificate and the host name checked (the default).
        case verifyFull = "verify-full"
    }

    /// The hosts of `database.url`, in its order: the driver keeps a connection to the first
    /// that ``targetSessionAttributes`` accepts.
    public var endpoints: [PostgresEndpoint]
    public var user: String
    public var database: String
    public var tls: TLSMode
    /// Which server a session may use (`target_session_attrs`): the primary unless a command
    /// only reads.
    public var targetSessionAttributes: TargetSessionAttributes = .readWrite
    /// How long a call may take to reach a usable server again after its connection broke,
    /// counted from the call's arrival (`database.reconnect-window-ms`).
    public var reconnectWindowMilliseconds = 30_000
    /// The password: from `database.password-file` or `TOKENCTL_DATABASE_PASSWORD`, never
    /// from the URL (a URL is printed by `config show` and lands in shell histories).
    public var password: String?
    /// Where the password came from, when from a file (`config show` names it).
    public var passwordFile: String?
    /// Why `database.password-file` cannot be used (missing, empty, readable by others):
    /// kept so that `config check` lists it beside the other problems; opening the database
    /// throws it.
    public var passwordProblem: ConfigurationError?
    /// PEM file of the certificate authorities that sign the server's certificate
    /// (`database.tls.ca-file`); the system's when nil.
    public var caFile: String?
    public var connectTimeoutMilliseconds: Int
    /// This host's name in attempt leases (`--host-id`, `database.host-id`; the host name by default).
    public var hostID: String
    /// How long an attempt's lease lasts: after that, another host closes the attempt of a
    /// host that died as UNKNOWN `activation.interrupted`.
    public var leaseMilliseconds: Int

    public init(
        endpoints: [PostgresEndpoint], user: String, database: String, tls: TLSMode = .verifyFull,
        password: String? = nil, caFile: String? = nil, connectTimeoutMilliseconds: Int = 10_000,
        hostID: String, leaseMilliseconds: Int = 60_000
    ) {
        precondition(!endpoints.isEmpty, "a PostgreSQL database has at least one host")
        self.endpoints = endpoints
        self.user = user
        self.database = database
        self.tls = tls
        self.password = password
        self.caFile = caFile
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.hostID = hostID
        self.leaseMilliseconds = leaseMilliseconds
    }

    /// One host's options.
    public init(
        host: String, port: Int = 5432, user: String, database: String, tls: TLSMode = .verifyFull,
        password: String? = nil, caFile: String? = nil, connectTimeoutMilliseconds: Int = 10_000,
        hostID: String, leaseMilliseconds: Int = 60_000
    ) {
        self.init(
            endpoints: [PostgresEndpoint(host: host, port: port)], user: user, database: database, tls: tls,
            password: password, caFile: caFile, connectTimeoutMilliseconds: connectTimeoutMilliseconds,
            hostID: hostID, leaseMilliseconds: leaseMilliseconds)
    }

    /// The URL without a password, as `config show` and errors print it.
    public var displayURL: String {
        let attributes =
            targetSessionAttributes == .readWrite ? "" : "&target_session_attrs=\(targetSessionAttributes.rawValue)"
        return "postgres://\(user)@\(endpoints.map(\.description).joined(separator: ","))/\(database)"
            + "?sslmode=\(tls.rawValue)\(attributes)"
    }
}

/// One host of a `database.url` and its port.
public struct PostgresEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int = 5432) {
        self.host = host
        self.port = port
    }

    /// `HOST:PORT`, an IPv6 address in brackets.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// Which server a session may use, as libpq's `target_session_attrs` names it.
public enum TargetSessionAttributes: String, Sendable, CaseIterable {
    /// The primary: a server that accepts writes (`pg_is_in_recovery()` false). The default.
    case readWrite = "read-write"
    /// Whichever host answers first.
    case any
    /// A standby when one answers, else any host.
    case preferStandby = "prefer-standby"
}

/// A `database.url`: `postgres://USER@HOST[:PORT][,HOST[:PORT]…]/DATABASE[?sslmode=MODE]
/// [&target_session_attrs=ATTRIBUTES]`, the hosts in the order libpq tries them.
public struct PostgresURL: Sendable, Equatable {
    public var endpoints: [PostgresEndpoint]
    public var user: String
    public var database: String
    public var tls: PostgresOptions.TLSMode
    public var targetSessionAttributes: TargetSessionAttributes

    /// The first host (the only one of a one-host URL).
    public var host: String { endpoints[0].host }
    public var port: Int { endpoints[0].port }

    /// Whether `text` names PostgreSQL (rather than being a mistyped path or another scheme).
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// - Throws: a message naming what is wrong, for the caller's `config.invalidValue`.
    public init(parsing text: String) throws(PostgresURLError) {
        guard let schemeEnd = text.range(of: "://"), Self.isPostgres(text) else {
            throw PostgresURLError(
                "it must start with postgres:// (postgres://USER@HOST:PORT/DATABASE?sslmode=verify-full)")
        }
        var rest = Substring(text[schemeEnd.upperBound...])
        var query = ""
        if let mark = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else { throw PostgresURLError("it names no database (…/DATABASE)") }
        let authority = rest[..<slash]
        database = try Self.decoded(rest[rest.index(after: slash)...], "database")
        guard !database.isEmpty, !database.contains("/") else {
            throw PostgresURLError("it names no database (…/DATABASE)")
        }
        guard let at = authority.lastIndex(of: "@") else {
            throw PostgresURLError("it names no user (postgres://USER@HOST/…)")
        }
        let userInfo = authority[..<at]
        guard !userInfo.contains(":") else {
            throw PostgresURLError(
                "it holds a password: put it in database.password-file or TOKENCTL_DATABASE_PASSWORD instead")
        }
        user = try Self.decoded(userInfo, "user")
        guard !user.isEmpty else { throw PostgresURLError("it names no user (postgres://USER@HOST/…)") }
        endpoints = []
        for hostPort in authority[authority.index(after: at)...].split(separator: ",", omittingEmptySubsequences: false)
        {
            endpoints.append(try Self.endpoint(hostPort))
        }
        tls = .verifyFull
        targetSessionAttributes = .readWrite
        for parameter in query.split(separator: "&") where !parameter.isEmpty {
            let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            switch (parts[0], parts.count) {
            case ("sslmode", 2):
                guard let mode = PostgresOptions.TLSMode(rawValue: String(parts[1])) else {
                    throw PostgresURLError("its sslmode must be disable, require, verify-ca or verify-full")
                }
                tls = mode
            case ("target_session_attrs", 2):
                guard let attributes = TargetSessionAttributes(rawValue: String(parts[1])) else {
                    throw PostgresURLError(
                        "its target_session_attrs must be read-write, any or prefer-standby (read-write writes; the others only read)"
                    )
                }
                targetSessionAttributes = attributes
            default:
                throw PostgresURLError(
                    "it has the parameter \(parts[0].prefix(40)), and only sslmode and target_session_attrs are known")
            }
        }
        if tls == .verifyFull, let host = endpoints.first(where: { Self.isIPAddress($0.host) })?.host {
            throw PostgresURLError(
                "sslmode=verify-full needs a host name (the server's certificate is checked against it, and TLS cannot send an IP address as the name): \(host) is an address; use the name in the certificate, or sslmode=verify-ca"
            )
        }
    }

    /// One `HOST[:PORT]` or `[IPV6][:PORT]` of the host list.
    private static func endpoint(_ text: Substring) throws(PostgresURLError) -> PostgresEndpoint {
        var hostPort = text
        var host: String
        var port = 5432
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else {
                throw PostgresURLError("its IPv6 host has no closing ]")
            }
            let after = hostPort[hostPort.index(after: close)...]
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else {
                    throw PostgresURLError("its port is not a number")
                }
                port = number
            }
        } else {
            if let colon = hostPort.lastIndex(of: ":") {
                guard let number = Int(hostPort[hostPort.index(after: colon)...]) else {
                    throw PostgresURLError("its port is not a number")
                }
                port = number
                hostPort = hostPort[..<colon]
            }
            host = try decoded(hostPort, "host")
        }
        guard !host.isEmpty else { throw PostgresURLError("it names no host") }
        guard (1...65535).contains(port) else { throw PostgresURLError("its port is outside 1–65535") }
        return PostgresEndpoint(host: host, port: port)
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }

    private static func decoded(_ text: Substring, _ what: String) throws(PostgresURLError) -> String {
        guard let value = String(text).removingPercentEncodingStrictly() else {
            throw PostgresURLError("its \(what) has a bad percent-encoding")
        }
        return value
    }
}

public struct PostgresURLError: Error, Equatable {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
}

extension String {
    /// Percent-decoding that refuses a stray `%` and what does not decode to UTF-8.
    fileprivate func removingPercentEncodingStrictly() -> String? {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(Hex.value(of:)),
                    let low = iterator.next().flatMap(Hex.value(of:))
                else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

}

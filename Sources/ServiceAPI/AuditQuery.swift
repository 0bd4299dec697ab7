import ErrorCodes
import Foundation
import TextFormats
import TokenActivation
import WalletModel

/// The query of `GET /v1/audit`: `serial`, `outcome`, `since`, `until`, `unfinished` and
/// `limit`, read as `audit list` reads its options (an outcome in any case, an empty window
/// refused).
public enum AuditQuery {
    /// The most audit entries one request answers.
    public static let maximumLimit = 10_000
    /// The entries a request without `limit` answers; older ones are the next page.
    public static let defaultLimit = 100

    /// What `GET /v1/audit` asks for.
    public struct Request: Sendable {
        public var filter: AuditFilter
        public var limit: Int
        /// Only entries with a smaller id (the next, older page).
        public var before: Int64?
        /// The parameters as given, but `before`, for the next page's link.
        public var parameters: [(String, String)]

        /// The query of the page of entries older than `id`.
        public func nextPage(before id: Int64) -> String {
            var pairs = parameters.filter { $0.0 != "limit" } + [("limit", String(limit)), ("before", String(id))]
            pairs = pairs.map { ($0.0, Self.escaped($0.1)) }
            return pairs.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        }

        private static func escaped(_ value: String) -> String {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~:")
            return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
        }
    }

    /// Reads the audit query's parameters, with `before`.
    public static func request(_ parameters: [(String, String)]) throws(Problem) -> Request {
        var before: Int64?
        var rest: [(String, String)] = []
        for (name, value) in parameters {
            guard name == "before" else {
                rest.append((name, value))
                continue
            }
            guard before == nil else { throw .invalid("the query parameter before is given twice") }
            guard let id = Int64(value), id >= 1 else {
                throw .invalid("before must be an audit id (a whole number from 1), as the Link header names it")
            }
            before = id
        }
        let (filter, limit) = try parse(rest)
        return Request(filter: filter, limit: limit, before: before, parameters: rest)
    }

    /// Reads the audit query's parameters; any other parameter, a repeated one or a bad
    /// value is a 400.
    public static func parse(_ parameters: [(String, String)]) throws(Problem) -> (AuditFilter, limit: Int) {
        var filter = AuditFilter()
        var limit = defaultLimit
        var seen: Set<String> = []
        for (name, value) in parameters {
            guard seen.insert(name).inserted else {
                throw .invalid("the query parameter \(SafeText.escaped(String(name.prefix(40)))) is given twice")
            }
            switch name {
            case "serial":
                guard !value.isEmpty else { throw .invalid("serial must not be empty") }
                filter.serialNumber = value
            case "outcome":
                guard let outcome = Outcome(rawValue: value.uppercased()), outcome != .dryRun else {
                    throw .invalid(
                        "outcome must be one of \(Outcome.allCases.filter { $0 != .dryRun }.map(\.rawValue).joined(separator: ", ")) (any case)"
                    )
                }
                filter.outcome = outcome.rawValue
            case "unfinished":
                guard value == "true" || value == "false" else { throw .invalid("unfinished must be true or false") }
                filter.unfinished = value == "true"
            case "since":
                guard let time = Timestamp(iso8601: value) else {
                    throw .invalid(
                        "since must be an ISO 8601 date or date-time, such as 2026-11-21 or 2026-11-21T06:10:00Z")
                }
                filter.since = time
            case "until":
                guard let time = Timestamp(iso8601Until: value) else {
                    throw .invalid(
                        "until must be an ISO 8601 date or date-time, such as 2026-11-21 or 2026-11-21T06:10:00Z")
                }
                filter.until = time
            case "limit":
                guard let number = Int(value), (1...maximumLimit).contains(number) else {
                    throw .invalid("limit must be a whole number from 1 to \(maximumLimit)")
                }
                limit = number
            default:
                throw .invalid(
                    "unknown query parameter \(SafeText.escaped(String(name.prefix(40)))); the audit takes serial, outcome, since, until, unfinished, limit and before"
                )
            }
        }
        if filter.unfinished && filter.outcome != nil {
            throw .invalid("unfinished lists attempts without an outcome; it cannot be combined with outcome")
        }
        // An empty window is a mistake to name, not 0 entries to answer (as audit list says).
        if let since = filter.since, let until = filter.until, since > until {
            throw .invalid("since is later than until; nothing could match")
        }
        return (filter, limit)
    }
}

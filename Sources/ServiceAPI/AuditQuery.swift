import ErrorCodes
import TokenActivation
import WalletModel

/// The query of `GET /v1/audit`: `serial`, `outcome`, `since`, `until` and `limit`.
public enum AuditQuery {
    /// The most audit entries one request answers.
    public static let maximumLimit = 10_000

    /// Reads the audit query's parameters; any other parameter, a repeated one or a bad
    /// value is a 400.
    public static func parse(_ parameters: [(String, String)]) throws(Problem) -> (AuditFilter, limit: Int) {
        var filter = AuditFilter()
        var limit = maximumLimit
        var seen: Set<String> = []
        for (name, value) in parameters {
            guard seen.insert(name).inserted else { throw .invalid("the query parameter \(SafeText.escaped(String(name.prefix(40)))) is given twice") }
            switch name {
            case "serial":
                guard !value.isEmpty else { throw .invalid("serial must not be empty") }
                filter.serialNumber = value
            case "outcome":
                guard let outcome = Outcome(rawValue: value), outcome != .dryRun else {
                    throw .invalid("outcome must be one of \(Outcome.allCases.filter { $0 != .dryRun }.map(\.rawValue).joined(separator: ", "))")
                }
                filter.outcome = value
            case "since":
                guard let time = Timestamp(iso8601: value) else { throw .invalid("since must be an ISO 8601 date or date-time, such as 2026-11-21 or 2026-11-21T06:10:00Z") }
                filter.since = time
            case "until":
                guard let time = Timestamp(iso8601Until: value) else { throw .invalid("until must be an ISO 8601 date or date-time, such as 2026-11-21 or 2026-11-21T06:10:00Z") }
                filter.until = time
            case "limit":
                guard let number = Int(value), (1...maximumLimit).contains(number) else { throw .invalid("limit must be a whole number from 1 to \(maximumLimit)") }
                limit = number
            default:
                throw .invalid("unknown query parameter \(SafeText.escaped(String(name.prefix(40)))); the audit takes serial, outcome, since, until and limit")
            }
        }
        return (filter, limit)
    }
}

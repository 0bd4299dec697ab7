import ErrorCodes
import Hummingbird
import HummingbirdCore
import TokenActivation
import WalletModel

extension APIResponder {
    /// The most audit entries one `GET /v1/audit` answers.
    static let auditLimit = 10_000

    /// `GET /v1/passes/{serialNumber}`: as `wallet show --json`, masked; 404 when none.
    func passes(serial: String) async -> Response {
        guard !serial.isEmpty, serial.utf8.count <= 256 else { return Self.problem(.invalid("the serial number must be 1 to 256 bytes")) }
        let database = service.pipeline.database
        do {
            let records = try await ActivationService.blocking { try database.passes(matching: PassQuery(serialNumber: serial)) }
            guard !records.isEmpty else {
                return Self.problem(Problem(status: 404, code: .walletNotFound, detail: "no pass record has serial \(Mask.identifier(serial)); add one with tokenctl wallet add or import"))
            }
            return Self.json(200, .array(records.map { .object($0.json(reveal: false)) }))
        } catch {
            return Self.problem(Self.storageProblem(error))
        }
    }

    /// `GET /v1/audit?serial=&outcome=&since=&until=&limit=`: as `audit list --json`, oldest
    /// first; `limit` keeps the newest N.
    func audit(_ query: FlatDictionary<Substring, Substring>) async -> Response {
        let filter: AuditFilter
        let limit: Int
        do throws(Problem) {
            (filter, limit) = try Self.auditQuery(query.map { (String($0.key), String($0.value)) })
        } catch {
            return Self.problem(error)
        }
        let database = service.pipeline.database
        do {
            let entries = try await ActivationService.blocking { () throws -> [JSONObject.Value] in
                var newest = RingBuffer<JSONObject.Value>(capacity: limit)
                try database.forEachAuditEntry(filter) { newest.append(.object($0.json(reveal: false))) }
                return newest.elements
            }
            return Self.json(200, .array(entries))
        } catch {
            return Self.problem(Self.storageProblem(error))
        }
    }

    /// Reads the audit query's parameters; any other parameter, a repeated one or a bad
    /// value is a 400.
    static func auditQuery(_ parameters: [(String, String)]) throws(Problem) -> (AuditFilter, limit: Int) {
        var filter = AuditFilter()
        var limit = auditLimit
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
                guard let number = Int(value), (1...auditLimit).contains(number) else { throw .invalid("limit must be a whole number from 1 to \(auditLimit)") }
                limit = number
            default:
                throw .invalid("unknown query parameter \(SafeText.escaped(String(name.prefix(40)))); the audit takes serial, outcome, since, until and limit")
            }
        }
        return (filter, limit)
    }
}

/// The last `capacity` elements appended.
struct RingBuffer<Element> {
    private var storage: [Element] = []
    private var start = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[start] = element
            start = (start + 1) % capacity
        }
    }

    /// Oldest first.
    var elements: [Element] { Array(storage[start...] + storage[..<start]) }
}

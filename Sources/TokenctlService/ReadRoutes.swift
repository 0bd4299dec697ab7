import ErrorCodes
import Foundation
import Hummingbird
import HummingbirdCore
import ServiceAPI
import TextFormats
import TokenActivation
import WalletModel

extension APIRoutes {
    /// `GET /v1/passes/{serialNumber}`: as `wallet show --json`, masked; 404 when none.
    func passes(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        // The path takes no query: a parameter it would ignore is named (as /v1/audit does).
        if let (name, _) = request.uri.queryParameters.first {
            throw Problem.invalid(
                "unknown query parameter \(SafeText.escaped(String(String(name).prefix(40)))); /v1/passes/{serialNumber} takes none"
            )
        }
        // The serial is one path segment, percent-decoded; a decoded "/" names no route.
        guard let segment = context.parameters.get("serialNumber"), let serial = segment.removingPercentEncoding,
            !serial.contains("/")
        else {
            throw Problem.notFound
        }
        guard !serial.isEmpty, serial.utf8.count <= 256 else {
            throw Problem.invalid("the serial number must be 1 to 256 bytes")
        }
        do {
            let records = try await service.store.passes(matching: PassQuery(serialNumber: serial))
            guard !records.isEmpty else {
                return Self.problem(
                    Problem(
                        status: 404, code: .walletNotFound,
                        detail:
                            "no pass record has serial \(Mask.identifier(serial)); add one with tokenctl wallet add or import"
                    ))
            }
            return Self.json(200, .array(records.map { .object($0.json(reveal: false)) }))
        } catch {
            return Self.problem(Self.storageProblem(error))
        }
    }

    /// `GET /v1/audit?serial=&outcome=&since=&until=&limit=&before=`: as `audit list --json`,
    /// oldest first, the newest `limit` (default 100) of the entries matching; when older ones
    /// match too, a `Link` header names the next page (`before` the oldest one answered).
    func audit(_ query: FlatDictionary<Substring, Substring>) async throws -> Response {
        let request = try AuditQuery.request(query.map { (String($0.key), String($0.value)) })
        do {
            // One more than the page: whether older entries match too.
            var filter = request.filter
            filter.before = request.before
            filter.newest = request.limit + 1
            var page: [AuditEntry] = []
            try await service.store.forEachAuditEntry(filter) { page.append($0) }
            let more = page.count > request.limit
            if more { page.removeFirst() }
            let (entries, oldest) = (page.map { JSONObject.Value.object($0.json(reveal: false)) }, page.first?.id)
            var headers: [(name: String, value: String)] = []
            if more, let oldest {
                headers.append((name: "Link", value: "</v1/audit?\(request.nextPage(before: oldest))>; rel=\"next\""))
            }
            return Self.json(200, .array(entries), headers: headers)
        } catch {
            return Self.problem(Self.storageProblem(error))
        }
    }
}

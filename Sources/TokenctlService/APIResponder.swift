import ErrorCodes
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceAPI
import WalletModel

/// The API of DESIGN §8 on one listener: routes by exact path, answers what the API
/// cannot read with its documented problem, and counts every answer by route template.
struct APIResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let service: ActivationService
    /// The bearer token a TCP listener requires, if one is configured.
    let bearerToken: [UInt8]?

    func respond(to request: Request, context: Context) async throws -> Response {
        let (route, response) = await route(request)
        service.metrics.httpRequest(route: route, status: Int(response.status.code))
        return response
    }

    private func route(_ request: Request) async -> (ServiceMetrics.Route, Response) {
        let path = request.uri.path
        let route: ServiceMetrics.Route
        var serial: String?
        switch path {
        case "/v1/activations": route = .activations
        case "/v1/activations/batch": route = .batch
        case "/v1/audit": route = .audit
        case "/livez": route = .livez
        case "/readyz": route = .readyz
        case "/metrics": route = .metrics
        default:
            let prefix = "/v1/passes/"
            guard path.hasPrefix(prefix), path.count > prefix.count,
                  let decoded = String(path.dropFirst(prefix.count)).removingPercentEncoding, !decoded.contains("/") else {
                return (.unknown, Self.problem(.notFound))
            }
            route = .passes
            serial = decoded
        }
        let allowed = route == .activations || route == .batch ? "POST" : "GET"
        guard request.method.rawValue == allowed else {
            return (route, Self.problem(.methodNotAllowed(allowed: [allowed])))
        }
        if route != .livez && route != .readyz, let bearerToken, !Self.authorized(request, token: bearerToken) {
            var problem = Problem(status: 401, code: .serviceUnauthorized, detail: "present the service's bearer token: Authorization: Bearer TOKEN")
            problem.headers = [("WWW-Authenticate", "Bearer")]
            return (route, Self.problem(problem))
        }
        let response: Response
        switch route {
        case .activations: response = await activation(request)
        case .batch: response = batch(request)
        case .passes: response = await passes(serial: serial ?? "")
        case .audit: response = await audit(request.uri.queryParameters)
        case .livez: response = Self.json(200, JSONObject(["status": .string("pass")]))
        case .readyz: response = await readiness()
        case .metrics: response = metrics()
        case .unknown: response = Self.problem(.notFound)
        }
        return (route, response)
    }

    /// `Authorization: Bearer TOKEN`, compared in constant time.
    static func authorized(_ request: Request, token: [UInt8]) -> Bool {
        guard let value = request.headers[.authorization], value.count > 7,
              value.prefix(7).lowercased() == "bearer " else { return false }
        return ConstantTime.equal(Array(value.utf8.dropFirst(7)), token)
    }

    static func json(_ status: Int, _ object: JSONObject.Value, headers extra: [(name: String, value: String)] = []) -> Response {
        body(status, contentType: "application/json", object.utf8 + [0x0A], headers: extra)
    }

    static func json(_ status: Int, _ object: JSONObject, headers extra: [(name: String, value: String)] = []) -> Response {
        json(status, .object(object), headers: extra)
    }

    static func problem(_ problem: Problem) -> Response {
        body(problem.status, contentType: "application/problem+json", JSONObject.Value.object(problem.json).utf8 + [0x0A], headers: problem.headers)
    }

    static func body(_ status: Int, contentType: String, _ bytes: [UInt8], headers extra: [(name: String, value: String)] = []) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        for (name, value) in extra {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// Comparison whose time does not depend on where two secrets differ.
enum ConstantTime {
    static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}

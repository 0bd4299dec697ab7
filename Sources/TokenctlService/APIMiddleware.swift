import Hummingbird
import NIOCore
import ServiceAPI
import WalletModel

/// Counts every answer by its route template and status (`tokenctl_http_requests_total`).
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let metrics: ServiceMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let response = try await next(request, context)
        let route =
            context.endpointPath.flatMap { ServiceMetrics.Route(rawValue: $0) } ?? APIRouter.endpoint(
                forPath: request.uri.path)?.route ?? .unknown
        metrics.httpRequest(route: route, status: Int(response.status.code))
        return response
    }
}

/// Each request's database window counts from its arrival (`database.reconnect-window-ms`,
/// DESIGN §10): a connection that breaks is retried until then, and then answered.
struct DatabaseWindowMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let windowMilliseconds: Int

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try await StoreDeadline.serving(windowMilliseconds: windowMilliseconds) { try await next(request, context) }
    }
}

/// The one place a failure becomes an answer: a ``Problem`` as `application/problem+json`,
/// a path the router does not know as 404 `request.notFound`.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            return APIRoutes.problem(problem)
        } catch let error as HTTPError where error.status == .notFound {
            return APIRoutes.problem(.notFound)
        } catch let error as any HTTPResponseError {
            return APIRoutes.problem(
                Problem(
                    status: Int(error.status.code), code: .requestInvalid,
                    detail: "the request could not be answered (\(error.status.code))"))
        }
    }
}

/// A path the router would match after trimming it (a trailing slash, an empty segment) is
/// not the API's path: 404 `request.notFound`, as for any other path (DESIGN §8).
struct ExactPathMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        if path != "/", path.hasSuffix("/") || path.contains("//") {
            throw Problem.notFound
        }
        return try await next(request, context)
    }
}

/// A request the router matched to no route whose path is one of the API's, with any other
/// method (QUERY and unregistered methods included): 405 with `Allow`.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if context.endpointPath == nil, let endpoint = APIRouter.endpoint(forPath: request.uri.path),
            endpoint.method != request.method
        {
            throw Problem.methodNotAllowed(allowed: [endpoint.method.rawValue])
        }
        return try await next(request, context)
    }
}

/// `Authorization: Bearer TOKEN` on every request but the health checks' (those routes are
/// added before it; a request the router matched to no route reaches it too), compared in
/// constant time.
struct BearerAccessMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let token: [UInt8]

    static let refusal: Problem = {
        var problem = Problem(
            status: 401, code: .serviceUnauthorized,
            detail: "present the service's bearer token: Authorization: Bearer TOKEN")
        problem.headers = [("WWW-Authenticate", "Bearer")]
        return problem
    }()

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard Self.authorized(request, token: token) || Self.healthPaths.contains(request.uri.path) else {
            throw Self.refusal
        }
        return try await next(request, context)
    }

    static let healthPaths: Set<String> = ["/livez", "/readyz"]

    static func authorized(_ request: Request, token: [UInt8]) -> Bool {
        guard let value = request.headers[.authorization], value.count > 7,
            value.prefix(7).lowercased() == "bearer "
        else { return false }
        return ConstantTime.equal(Array(value.utf8.dropFirst(7)), token)
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

import Hummingbird
import HummingbirdCore
import NIOCore
import ServiceAPI
import TextFormats
import WalletModel

/// The API of DESIGN §8 on Hummingbird's router: the routes, a problem for whatever the API
/// cannot answer (one error middleware), every answer counted by route template, and the
/// bearer token a TCP listener may require.
enum APIRouter {
    /// The paths and the one method each takes.
    static let endpoints: [(route: ServiceMetrics.Route, method: HTTPRequest.Method)] = [
        (.activations, .post), (.batch, .post), (.passes, .get), (.audit, .get), (.auditCheckpoint, .get),
        (.auditProof, .get),
        (.auditConsistency, .get), (.livez, .get), (.readyz, .get), (.metrics, .get),
    ]

    /// - Parameter bearerToken: what every route but the health checks requires, when set.
    static func router(_ routes: APIRoutes, bearerToken: [UInt8]?) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: MetricsMiddleware(metrics: routes.service.metrics))
        router.add(middleware: ProblemMiddleware())
        router.add(middleware: ExactPathMiddleware())
        router.add(
            middleware: DatabaseWindowMiddleware(windowMilliseconds: routes.service.driver.reconnectWindowMilliseconds))
        // Health checks answer without the token (DESIGN §8: every other request presents it,
        // a wrong method or an unknown path included).
        router.get(path(.livez)) { _, _ in APIRoutes.json(200, JSONObject(["status": .string("pass")])) }
        router.get(path(.readyz)) { _, _ in await routes.readiness() }
        if let bearerToken { router.add(middleware: BearerAccessMiddleware(token: bearerToken)) }
        router.add(middleware: MethodNotAllowedMiddleware())
        router.post(path(.activations)) { request, _ in try await routes.activation(request) }
        router.post(path(.batch)) { request, _ in try routes.batch(request) }
        router.get(path(.passes)) { request, context in try await routes.passes(request, context) }
        router.get(path(.audit)) { request, _ in try await routes.audit(request.uri.queryParameters) }
        router.get(path(.auditCheckpoint)) { _, _ in try await routes.auditCheckpoint() }
        router.get(path(.auditProof)) { request, _ in try await routes.auditProof(request.uri.queryParameters) }
        router.get(path(.auditConsistency)) { request, _ in
            try await routes.auditConsistency(request.uri.queryParameters)
        }
        router.get(path(.metrics)) { _, _ in routes.metrics() }
        return router
    }

    /// A route's template as the router reads it (`{serialNumber}` captures one segment).
    private static func path(_ route: ServiceMetrics.Route) -> RouterPath {
        RouterPath(route.rawValue)
    }

    /// The endpoint whose template `path` fits (a `{…}` segment fits any one segment), whatever
    /// the method: what a request the router did not match was meant for.
    static func endpoint(forPath path: String) -> (route: ServiceMetrics.Route, method: HTTPRequest.Method)? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        return endpoints.first { endpoint in
            let template = endpoint.route.rawValue.split(separator: "/")
            return template.count == segments.count
                && zip(template, segments).allSatisfy { expected, segment in
                    expected.hasPrefix("{") || expected == segment
                }
        }
    }

    /// The router in the form Hummingbird's HTTP channel calls: one request, its response
    /// written on the connection.
    static func channelResponder(_ routes: APIRoutes, bearerToken: [UInt8]?) -> HTTPChannelHandler.Responder {
        let responder = router(routes, bearerToken: bearerToken).buildResponder()
        let logger = routes.service.logger
        return { request, writer, channel in
            let context = BasicRequestContext(source: .init(channel: channel, logger: logger))
            let response = try await responder.respond(to: request, context: context)
            try await writer.write(response: response.head, body: response.body)
        }
    }
}

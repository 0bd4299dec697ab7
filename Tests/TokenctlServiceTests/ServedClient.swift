import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import ServiceLifecycle
import Testing

@testable import TokenctlService

/// A client of the API as `tokenctl serve` serves it (``ServedAPI``), on a loopback port of
/// this process: each request on a connection of its own, so an answer that closes its
/// connection (a body over the limit) leaves the next request unaffected.
struct ServedClient: Sendable {
    struct Response: Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: ByteBuffer
    }

    /// The TCP port; 0 on a Unix socket.
    let port: Int

    func execute(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil
    ) async throws -> Response {
        try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(60))) {
            let response = try await $0.execute(
                TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body))
            return Response(status: response.status, headers: response.headers, body: response.body ?? ByteBuffer())
        }
    }
}

extension ServedClient {
    /// `POST /v1/activations` for a serial.
    func activate(_ serial: String, dryRun: Bool = false, headers: HTTPFields = [:]) async throws -> Response {
        let deeplink = "mybank://activate?serialNumber=\(serial)"
        return try await request(
            .post, "/v1/activations",
            body: dryRun ? #"{"deeplink": "\#(deeplink)", "dryRun": true}"# : #"{"deeplink": "\#(deeplink)"}"#,
            headers: headers)
    }

    /// A request with a text body of `contentType`.
    func request(
        _ method: HTTPRequest.Method, _ uri: String, body: String? = nil, contentType: String = "application/json",
        headers: HTTPFields = [:]
    ) async throws -> Response {
        var headers = headers
        if body != nil { headers[.contentType] = contentType }
        return try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }
}

extension ServedClient.Response {
    var text: String { String(buffer: body) }

    func header(_ name: String) -> String? { headers[HTTPField.Name(name)!] }

    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    func object() throws -> [String: Any] {
        try #require(try json() as? [String: Any], "body: \(text)")
    }

    /// The lines of an NDJSON body, parsed.
    func lines() throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }
}

extension APIRouterTests.Fixture {
    /// Serves the API as `tokenctl serve` does while `body` runs, on 127.0.0.1 and a free port
    /// (or on `address`), then drains it as a SIGTERM would.
    func served<Value: Sendable>(
        on address: ListenerAddress = .tcp(host: "127.0.0.1", port: 0), bearerToken: String? = nil,
        _ body: (ServedClient) async throws -> Value
    ) async throws -> Value {
        let api = ServedAPI(routes: APIRoutes(service: service), settings: settings.service, logger: logger)
        let (bound, listening) = AsyncStream.makeStream(of: Int.self)
        let listener = try api.listener(address, bearerToken: bearerToken.map { Array($0.utf8) }) { address in
            listening.yield(address?.port ?? 0)
            listening.finish()
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [listener], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { listening.finish() }
                try await group.run()
            }
            var iterator = bound.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await tasks.waitForAll()
                throw ServedClientError.notListening
            }
            let value: Value
            do {
                value = try await body(ServedClient(port: port))
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return value
        }
    }
}

enum ServedClientError: Error {
    case notListening
}

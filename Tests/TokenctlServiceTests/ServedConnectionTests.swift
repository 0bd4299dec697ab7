import Foundation
import TestSupport
import Testing

@testable import TokenctlService

/// Client connections as the service serves them (DESIGN §8), in process on a Unix socket:
/// bounded in time (idle and header timeouts) and number (`service.max-connections`), and
/// HTTP/1.0 closed after its answer. The raw clients block, so they run on threads of their
/// own, off the cooperative pool the server runs on.
@Suite struct ServedConnectionTests {
    static func elapsed(_ body: () -> String) -> (String, Duration) {
        let start = ContinuousClock.now
        let text = body()
        return (text, .now - start)
    }

    /// Runs `body` on `fixture`'s API served on a Unix socket in its directory.
    static func withSocket(
        _ environment: [String: String] = [:], _ body: @escaping @Sendable (String) throws -> Void
    ) async throws {
        let fixture = try await APIRouterTests.Fixture.start(environment: environment)
        try await withTeardown({ try await fixture.stop() }) {
            let socket = fixture.directory.file("api.sock")
            try await fixture.served(on: .unix(path: socket)) { _ in
                try await Threads.run { try body(socket) }
            }
        }
    }

    @Test func idleAndSlowConnectionsAreClosed() async throws {
        try await Self.withSocket([
            "TOKENCTL_SERVICE_IDLE_TIMEOUT_MS": "1500", "TOKENCTL_SERVICE_HEADER_TIMEOUT_MS": "300",
        ]) { socket in
            // Idle: connected, nothing sent.
            let idle = try UnixClient(path: socket)
            let (nothing, idleFor) = Self.elapsed { idle.receiveAll(timeout: .seconds(5)) }
            #expect(nothing.isEmpty && idleFor < .seconds(5), "open for \(idleFor)")
            // Slow: a head that never ends.
            let slow = try UnixClient(path: socket)
            slow.send("GET /livez HTTP/1.1\r\nHost: local")
            let (_, slowFor) = Self.elapsed { slow.receiveAll(timeout: .seconds(5)) }
            #expect(slowFor < .seconds(5), "open for \(slowFor)")
            // A connection that keeps asking stays open past the idle timeout (timings wide
            // enough for a loaded machine).
            let busy = try UnixClient(path: socket)
            for _ in 0..<4 {
                busy.send("GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(busy.receive(until: "\"pass\"", timeout: .seconds(5)).contains("200 OK"))
                usleep(300_000)
            }
        }
    }

    @Test func http10WithoutKeepAliveIsClosedAfterItsAnswer() async throws {
        try await Self.withSocket { socket in
            let client = try UnixClient(path: socket)
            client.send("GET /livez HTTP/1.0\r\n\r\n")
            let (answer, took) = Self.elapsed { client.receiveAll(timeout: .seconds(5)) }
            #expect(answer.contains("200") && answer.contains("\"pass\""))
            #expect(answer.lowercased().contains("connection: close"))
            #expect(took < .seconds(5), "left open for \(took)")
        }
    }

    @Test func connectionsBeyondTheLimitWaitUntilOneCloses() async throws {
        try await Self.withSocket(["TOKENCTL_SERVICE_MAX_CONNECTIONS": "2"]) { socket in
            let first = try UnixClient(path: socket), second = try UnixClient(path: socket)
            for client in [first, second] {
                client.send("GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(client.receive(until: "\"pass\"", timeout: .seconds(5)).contains("200 OK"))
            }
            let waiting = try UnixClient(path: socket)
            waiting.send("GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(waiting.receive(until: "\"pass\"", timeout: .milliseconds(700)).isEmpty)
            first.close()
            #expect(waiting.receive(until: "\"pass\"", timeout: .seconds(8)).contains("200 OK"))
        }
    }
}

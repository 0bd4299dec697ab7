import Foundation
import TestSupport
import Testing

/// Client connections (DESIGN §8): bounded in time (idle and header timeouts) and number
/// (`service.max-connections`), HTTP/1.0 closed after its answer, and a connection already
/// open when draining starts still answered `/readyz` 503.
@Suite struct ServiceConnectionTests {
    static func elapsed(_ body: () -> String) -> (String, Duration) {
        let start = ContinuousClock.now
        let text = body()
        return (text, .now - start)
    }

    @Test func idleAndSlowConnectionsAreClosed() async throws {
        let service = try await ServiceHarness.start(environment: [
            "TOKENCTL_SERVICE_IDLE_TIMEOUT_MS": "500", "TOKENCTL_SERVICE_HEADER_TIMEOUT_MS": "300",
        ])
        try await withTeardown({ try await service.shutdown() }) {
            // Idle: connected, nothing sent.
            let idle = try UnixClient(path: service.socket)
            let (nothing, idleFor) = Self.elapsed { idle.receiveAll(timeout: .seconds(5)) }
            #expect(nothing.isEmpty && idleFor < .seconds(3), "open for \(idleFor)")
            // Slow: a head that never ends.
            let slow = try UnixClient(path: service.socket)
            slow.send("GET /livez HTTP/1.1\r\nHost: local")
            let (_, slowFor) = Self.elapsed { slow.receiveAll(timeout: .seconds(5)) }
            #expect(slowFor < .seconds(3), "open for \(slowFor)")
            // A connection that keeps asking stays open past the idle timeout.
            let busy = try UnixClient(path: service.socket)
            for _ in 0..<4 {
                busy.send("GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(busy.receive(until: "\"pass\"", timeout: .seconds(2)).contains("200 OK"))
                usleep(300_000)
            }
        }
    }

    @Test func http10WithoutKeepAliveIsClosedAfterItsAnswer() async throws {
        let service = try await ServiceHarness.start()
        try await withTeardown({ try await service.shutdown() }) {
            let client = try UnixClient(path: service.socket)
            client.send("GET /livez HTTP/1.0\r\n\r\n")
            let (answer, took) = Self.elapsed { client.receiveAll(timeout: .seconds(5)) }
            #expect(answer.contains("200") && answer.contains("\"pass\""))
            #expect(answer.lowercased().contains("connection: close"))
            #expect(took < .seconds(2), "left open for \(took)")
        }
    }

    @Test func connectionsBeyondTheLimitWaitUntilOneCloses() async throws {
        let service = try await ServiceHarness.start(environment: ["TOKENCTL_SERVICE_MAX_CONNECTIONS": "2"])
        try await withTeardown({ try await service.shutdown() }) {
            let first = try UnixClient(path: service.socket), second = try UnixClient(path: service.socket)
            for client in [first, second] {
                client.send("GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(client.receive(until: "\"pass\"", timeout: .seconds(2)).contains("200 OK"))
            }
            let waiting = try UnixClient(path: service.socket)
            waiting.send("GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(waiting.receive(until: "\"pass\"", timeout: .milliseconds(700)).isEmpty)
            first.close()
            #expect(waiting.receive(until: "\"pass\"", timeout: .seconds(3)).contains("200 OK"))
        }
    }

    @Test func anOpenConnectionIsAnswered503ByReadyzWhileDraining() async throws {
        let service = try await ServiceHarness.start()
        try await withTeardown({ try await service.activation.stop() }) {
            let client = try UnixClient(path: service.socket)
            client.send("GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(client.receive(until: "}", timeout: .seconds(2)).contains("200 OK"))
            kill(service.process.process.processIdentifier, SIGTERM)
            usleep(200_000)
            client.send("GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let draining = client.receiveAll(timeout: .seconds(5))
            #expect(draining.contains("503"), "\(draining)")
            #expect(draining.contains("\"fail\""))
            let stopped = try service.process.finish()
            #expect(stopped.status == 0)
        }
    }

    @Test func jsonLogsKeepTheErrorLineJSON() throws {
        let cli = CLI()
        let result = try cli.run([
            "serve", "--log-format", "json", "--socket", cli.directory.file("missing/deeper/x.sock"),
        ])
        #expect(result.status == 69)
        let lines = result.stderr.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not JSON: \(line)")
        }
        #expect(result.stderr.contains("service.cannotListen"))
    }
}

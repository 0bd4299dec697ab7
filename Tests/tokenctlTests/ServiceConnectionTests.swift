import Foundation
import TestSupport
import Testing

/// Client connections through the binary (DESIGN §8): a connection already open when SIGTERM
/// starts the drain is still answered, `/readyz` 503; a JSON log stays JSON on a failed start.
/// The time and number bounds are tested in process (`TokenctlServiceTests/ServedConnectionTests`).
@Suite struct ServiceConnectionTests {
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

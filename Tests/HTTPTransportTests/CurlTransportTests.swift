import Glibc
import HTTPTransport
import Sandbox
import TestSupport
import Testing

/// The real libcurl transport against the loopback sandbox.
@Suite struct CurlTransportTests {
    func activation(_ reference: String, base: String) -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: base + "/issuer/push-provisioning/tokens/activations",
            headers: [("Content-Type", "application/json"), ("X-Request-ID", "req-1")],
            body: Array(#"{"tokenUniqueReference": "\#(reference)"}"#.utf8)
        )
    }

    func withSandbox(slowDelay: Duration = .seconds(5), _ body: (TMPSandbox) async throws -> Void) async throws {
        let sandbox = try await TMPSandbox.start(port: 0, slowDelay: slowDelay)
        do {
            try await body(sandbox)
        } catch {
            try await sandbox.shutdown()
            throw error
        }
        try await sandbox.shutdown()
    }

    @Test func postsTheBodyAndHeadersAndReadsTheAnswer() async throws {
        try await withSandbox { sandbox in
            let transport = try CurlTransport(options: CurlTransportOptions())
            let response = try await transport.send(activation("DAPL00001234", base: sandbox.baseURL))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).contains(#""issuerMobileAppAuthResponse": "APPROVED""#))
            let received = try #require(sandbox.requests.first)
            #expect(received.body == Array(#"{"tokenUniqueReference": "DAPL00001234"}"#.utf8))
            #expect(received.header("X-Request-ID") == "req-1")
            #expect(received.header("Expect") == nil)
            #expect(sandbox.activationRequestCount == 1)
        }
    }

    @Test func keepsTheConnectionAliveBetweenRequests() async throws {
        try await withSandbox { sandbox in
            let transport = try CurlTransport(options: CurlTransportOptions())
            for index in 0..<5 {
                _ = try await transport.send(activation("DAPL\(index)", base: sandbox.baseURL))
            }
            #expect(sandbox.activationRequestCount == 5)
            #expect(sandbox.connectionCount == 1)
        }
    }

    @Test func aRefusedConnectionWasNotSentAndMayBeRetried() async throws {
        let port = try unusedPort()
        let transport = try CurlTransport(options: CurlTransportOptions())
        let error = try await #require(throws: TransportError.self) {
            try await transport.send(activation("DAPL1", base: "http://127.0.0.1:\(port)"))
        }
        #expect(error.kind == .connectionRefused)
        #expect(!error.wasSent)
        #expect(error.isRetryable)
    }

    @Test func aTimeoutAfterSendingIsFinal() async throws {
        try await withSandbox(slowDelay: .seconds(2)) { sandbox in
            let transport = try CurlTransport(options: CurlTransportOptions(timeoutMilliseconds: 200))
            let error = try await #require(throws: TransportError.self) {
                try await transport.send(activation("SBXSLOW1", base: sandbox.baseURL))
            }
            #expect(error.kind == .timeout)
            #expect(error.wasSent)
            #expect(!error.isRetryable)
            #expect(sandbox.activationRequestCount == 1)
        }
    }

    @Test func aDroppedConnectionAfterSendingIsFinal() async throws {
        try await withSandbox { sandbox in
            let transport = try CurlTransport(options: CurlTransportOptions())
            let error = try await #require(throws: TransportError.self) {
                try await transport.send(activation("SBXDROP1", base: sandbox.baseURL))
            }
            #expect(error.kind == .connectionLost)
            #expect(error.wasSent)
            #expect(sandbox.activationRequestCount == 1)
        }
    }

    @Test func redirectsAreNotFollowed() async throws {
        try await withSandbox { sandbox in
            let transport = try CurlTransport(options: CurlTransportOptions())
            let response = try await transport.send(activation("SBXREDIRECT1", base: sandbox.baseURL))
            #expect(response.status == 302)
            #expect(sandbox.requests.count == 1)
        }
    }

    @Test func anAnswerOverTheCapIsRefused() async throws {
        try await withSandbox { sandbox in
            let transport = try CurlTransport(options: CurlTransportOptions(maximumResponseBytes: 16))
            let error = try await #require(throws: TransportError.self) {
                try await transport.send(activation("DAPL1", base: sandbox.baseURL))
            }
            #expect(error.kind == .responseTooLarge)
            #expect(error.wasSent)
        }
    }

    @Test func httpsToAPlainServerFailsTheHandshakeAndSendsNothing() async throws {
        try await withSandbox { sandbox in
            let transport = try CurlTransport(options: CurlTransportOptions())
            let error = try await #require(throws: TransportError.self) {
                try await transport.send(activation("DAPL1", base: "https://127.0.0.1:\(sandbox.port)"))
            }
            #expect(error.kind == .tls)
            #expect(!error.wasSent)
            #expect(sandbox.activationRequestCount == 0)
        }
    }
}


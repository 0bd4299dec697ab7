import Foundation
import Glibc
import HTTPTransport
import Sandbox
import TestSupport
import Testing

/// Both libcurl transports (easy handle, multi interface) against the loopback sandbox.
@Suite struct CurlTransportTests {
    enum Kind: String, CaseIterable { case easy, multi }

    /// A transport of `kind`, shut down by `body`'s end.
    func with(
        _ kind: Kind, _ options: CurlTransportOptions = CurlTransportOptions(),
        _ body: (any HTTPTransport) async throws -> Void
    ) async throws {
        switch kind {
        case .easy:
            try await body(try CurlTransport(options: options))
        case .multi:
            let transport = try CurlMultiTransport(options: options)
            defer { transport.shutdown() }
            try await body(transport)
        }
    }

    /// The multi transport's transfer thread shows its name to the system (`ps -L`).
    @Test func theTransferThreadIsNamed() throws {
        func names() -> [String] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        let transport = try CurlMultiTransport(options: CurlTransportOptions())
        let deadline = ContinuousClock.now + .seconds(5)
        while !names().contains("tokenctl.curl"), ContinuousClock.now < deadline { usleep(10_000) }
        #expect(names().contains("tokenctl.curl"))
        transport.shutdown()
    }

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

    @Test(arguments: Kind.allCases) func postsTheBodyAndHeadersAndReadsTheAnswer(kind: Kind) async throws {
        try await withSandbox { sandbox in
            try await with(kind) { transport in
                let response = try await transport.send(activation("DAPL00001234", base: sandbox.baseURL))
                #expect(response.status == 200)
                #expect(
                    String(decoding: response.body, as: UTF8.self).contains(
                        #""issuerMobileAppAuthResponse": "APPROVED""#))
                let received = try #require(sandbox.requests.first)
                #expect(received.body == Array(#"{"tokenUniqueReference": "DAPL00001234"}"#.utf8))
                #expect(received.header("X-Request-ID") == "req-1")
                #expect(received.header("Expect") == nil)
                #expect(sandbox.activationRequestCount == 1)
            }
        }
    }

    /// Both transports answer eight tasks sending at once, each its own answer.
    @Test(arguments: Kind.allCases) func answersSendsFromManyTasks(kind: Kind) async throws {
        try await withSandbox { sandbox in
            try await with(kind) { transport in
                let base = sandbox.baseURL
                await withTaskGroup(of: Void.self) { group in
                    for worker in 0..<8 {
                        group.addTask {
                            for index in 0..<5 {
                                let reference = "DAPL0000\(worker)\(index)00"
                                let response = try? await transport.send(activation(reference, base: base))
                                #expect(response?.status == 200)
                            }
                        }
                    }
                }
                #expect(sandbox.activationRequestCount == 40)
            }
        }
    }

    @Test(arguments: Kind.allCases) func keepsTheConnectionAliveBetweenRequests(kind: Kind) async throws {
        try await withSandbox { sandbox in
            try await with(kind) { transport in
                for index in 0..<5 {
                    _ = try await transport.send(activation("DAPL\(index)", base: sandbox.baseURL))
                }
                #expect(sandbox.activationRequestCount == 5)
                // The connection is reused: without keep-alive each request opens its own (five).
                // Under the whole suite's load libcurl now and then opens a second one (its
                // liveness check of an idle connection), so one reuse chain of three is required.
                let connections = sandbox.requests.map(\.connection)
                #expect(Set(connections).count <= 2, "\(connections)")
                #expect(
                    Dictionary(grouping: connections, by: { $0 }).values.contains { $0.count >= 3 }, "\(connections)")
                #expect(sandbox.requests.allSatisfy { $0.connection >= 1 })
            }
        }
    }

    @Test(arguments: Kind.allCases) func aRefusedConnectionWasNotSentAndMayBeRetried(kind: Kind) async throws {
        let port = try unusedPort()
        try await with(kind) { transport in
            let error = try await #require(throws: TransportError.self) {
                try await transport.send(activation("DAPL1", base: "http://127.0.0.1:\(port)"))
            }
            #expect(error.kind == .connectionRefused)
            #expect(!error.wasSent)
            #expect(error.isRetryable)
        }
    }

    @Test(arguments: Kind.allCases) func aTimeoutAfterSendingIsFinal(kind: Kind) async throws {
        try await withSandbox(slowDelay: .seconds(2)) { sandbox in
            try await with(kind, CurlTransportOptions(timeoutMilliseconds: 200)) { transport in
                let error = try await #require(throws: TransportError.self) {
                    try await transport.send(activation("SBXSLOW1", base: sandbox.baseURL))
                }
                #expect(error.kind == .timeout)
                #expect(error.wasSent)
                #expect(!error.isRetryable)
                #expect(sandbox.activationRequestCount == 1)
            }
        }
    }

    @Test(arguments: Kind.allCases) func aDroppedConnectionAfterSendingIsFinal(kind: Kind) async throws {
        try await withSandbox { sandbox in
            try await with(kind) { transport in
                let error = try await #require(throws: TransportError.self) {
                    try await transport.send(activation("SBXDROP1", base: sandbox.baseURL))
                }
                #expect(error.kind == .connectionLost)
                #expect(error.wasSent)
                #expect(sandbox.activationRequestCount == 1)
            }
        }
    }

    /// libcurl re-sends by itself when a reused connection dies without an answer; the
    /// transport must not let it (it did, up to five times, before the rewind guard).
    @Test(arguments: Kind.allCases) func aDroppedReusedConnectionIsNotSentAgain(kind: Kind) async throws {
        try await withSandbox { sandbox in
            try await with(kind) { transport in
                _ = try await transport.send(activation("DAPL1", base: sandbox.baseURL))
                let error = try await #require(throws: TransportError.self) {
                    try await transport.send(activation("SBXDROP1", base: sandbox.baseURL))
                }
                // On a loaded machine (the whole suite on two cores) this has ended, rarely, in
                // the timeout rather than as a lost connection, without a second request; either
                // way the attempt is final and sent, which is what this test is about.
                #expect([.connectionLost, .timeout].contains(error.kind), "\(error.kind)")
                #expect(error.wasSent)
                // libcurl may open a connection for its retry; no request reaches it
                #expect(sandbox.activationRequestCount == 2)
                // and the transport works on afterwards, on a fresh connection
                #expect(try await transport.send(activation("DAPL2", base: sandbox.baseURL)).status == 200)
                #expect(sandbox.activationRequestCount == 3)
            }
        }
    }

    @Test(arguments: Kind.allCases) func redirectsAreNotFollowed(kind: Kind) async throws {
        try await withSandbox { sandbox in
            try await with(kind) { transport in
                let response = try await transport.send(activation("SBXREDIRECT1", base: sandbox.baseURL))
                #expect(response.status == 302)
                #expect(sandbox.requests.count == 1)
            }
        }
    }

    @Test(arguments: Kind.allCases) func anAnswerOverTheCapIsRefused(kind: Kind) async throws {
        try await withSandbox { sandbox in
            try await with(kind, CurlTransportOptions(maximumResponseBytes: 16)) { transport in
                let error = try await #require(throws: TransportError.self) {
                    try await transport.send(activation("DAPL1", base: sandbox.baseURL))
                }
                #expect(error.kind == .responseTooLarge)
                #expect(error.wasSent)
            }
        }
    }

    @Test(arguments: Kind.allCases) func httpsToAPlainServerFailsTheHandshakeAndSendsNothing(kind: Kind) async throws {
        try await withSandbox { sandbox in
            try await with(kind) { transport in
                let error = try await #require(throws: TransportError.self) {
                    try await transport.send(activation("DAPL1", base: "https://127.0.0.1:\(sandbox.port)"))
                }
                #expect(error.kind == .tls)
                #expect(!error.wasSent)
                #expect(sandbox.activationRequestCount == 0)
            }
        }
    }
}

import Foundation
import Glibc
import HTTPTransport
import Sandbox
import TestSupport
import Testing

/// The libcurl transport against the loopback sandbox.
@Suite struct CurlTransportTests {
    /// A transport with `options`.
    func with(
        _ options: CurlTransportOptions = CurlTransportOptions(), _ body: (CurlTransport) async throws -> Void
    ) async throws {
        try await body(try CurlTransport(options: options))
    }

    /// Runs `body` in a child process of its own, as a CLI's or the service's, when it counts
    /// connections: every transport of a process shares one pool, which the other tests of
    /// this bundle would use at the same time.
    func inAProcessOfItsOwn(_ test: String = #function, _ body: () async throws -> Void) async throws {
        let name = String(test.prefix { $0 != "(" })
        if ChildRun.isChild(name) {
            try await body()
            return
        }
        let child = try ChildRun.run(test: name)
        #expect(!child.signalled && child.status == 0, "failed in its own process; run it alone to see why")
    }

    /// The names of this process's threads, as `ps -L` shows them.
    func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// Transports with different options (timeouts, answer caps, kept connections) all send
    /// on the one transfer thread, which shows its name to the system.
    @Test func everyTransportSendsOnTheOneNamedTransferThread() async throws {
        try await withSandbox { sandbox in
            let transports = try [
                CurlTransport(options: CurlTransportOptions()),
                CurlTransport(options: CurlTransportOptions(timeoutMilliseconds: 4_000)),
                CurlTransport(options: CurlTransportOptions(maximumResponseBytes: 4_096)),
            ]
            let base = sandbox.baseURL
            try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, transport) in transports.enumerated() {
                    group.addTask { try await transport.send(activation("DAPL000\(index)", base: base)).status }
                }
                for try await status in group { #expect(status == 200) }
            }
            #expect(sandbox.activationRequestCount == 3)
            #expect(threadNames().filter { $0 == "tokenctl.curl" }.count == 1, "\(threadNames())")
        }
    }

    /// The connections a burst opened are kept through a quiet moment (libcurl's default keeps
    /// four per transfer in progress, and would close them one by one as requests go on alone).
    @Test func aBurstsConnectionsAreKeptThroughAQuietMoment() async throws {
        try await inAProcessOfItsOwn {
            try await withSandbox(slowDelay: .milliseconds(300)) { sandbox in
                var options = CurlTransportOptions()
                options.keptConnections = 8
                try await with(options) { transport in
                    let base = sandbox.baseURL
                    func burst() async throws {
                        try await withThrowingTaskGroup(of: Int.self) { group in
                            for index in 0..<8 {
                                group.addTask {
                                    try await transport.send(activation("SBXSLOW\(index)", base: base)).status
                                }
                            }
                            for try await status in group { #expect(status == 200) }
                        }
                    }
                    try await burst()
                    let afterBurst = transport.connectionsOpened
                    #expect(afterBurst == 8)
                    for index in 0..<3 {
                        #expect(try await transport.send(activation("DAPL\(index)", base: base)).status == 200)
                    }
                    try await burst()
                    // At most one more (libcurl's liveness check of an idle connection, under load).
                    #expect(transport.connectionsOpened - afterBurst <= 1, "\(transport.connectionsOpened)")
                }
            }
        }
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

    @Test func postsTheBodyAndHeadersAndReadsTheAnswer() async throws {
        try await withSandbox { sandbox in
            try await with { transport in
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

    /// Eight tasks sending at once on one transport get each its own answer.
    @Test func answersSendsFromManyTasks() async throws {
        try await withSandbox { sandbox in
            try await with { transport in
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

    @Test func keepsTheConnectionAliveBetweenRequests() async throws {
        try await inAProcessOfItsOwn {
            try await withSandbox { sandbox in
                try await with { transport in
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
                        Dictionary(grouping: connections, by: { $0 }).values.contains { $0.count >= 3 },
                        "\(connections)")
                    #expect(sandbox.requests.allSatisfy { $0.connection >= 1 })
                }
            }
        }
    }

    @Test func aRefusedConnectionWasNotSentAndMayBeRetried() async throws {
        let port = try unusedPort()
        try await with { transport in
            let error = try await #require(throws: TransportError.self) {
                try await transport.send(activation("DAPL1", base: "http://127.0.0.1:\(port)"))
            }
            #expect(error.kind == .connectionRefused)
            #expect(!error.wasSent)
            #expect(error.isRetryable)
        }
    }

    @Test func aTimeoutAfterSendingIsFinal() async throws {
        try await withSandbox(slowDelay: .seconds(2)) { sandbox in
            try await with(CurlTransportOptions(timeoutMilliseconds: 200)) { transport in
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

    @Test func aDroppedConnectionAfterSendingIsFinal() async throws {
        try await withSandbox { sandbox in
            try await with { transport in
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
    @Test func aDroppedReusedConnectionIsNotSentAgain() async throws {
        try await withSandbox { sandbox in
            try await with { transport in
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

    @Test func redirectsAreNotFollowed() async throws {
        try await withSandbox { sandbox in
            try await with { transport in
                let response = try await transport.send(activation("SBXREDIRECT1", base: sandbox.baseURL))
                #expect(response.status == 302)
                #expect(sandbox.requests.count == 1)
            }
        }
    }

    @Test func anAnswerOverTheCapIsRefused() async throws {
        try await withSandbox { sandbox in
            try await with(CurlTransportOptions(maximumResponseBytes: 16)) { transport in
                let error = try await #require(throws: TransportError.self) {
                    try await transport.send(activation("DAPL1", base: sandbox.baseURL))
                }
                #expect(error.kind == .responseTooLarge)
                #expect(error.wasSent)
            }
        }
    }

    @Test func httpsToAPlainServerFailsTheHandshakeAndSendsNothing() async throws {
        try await withSandbox { sandbox in
            try await with { transport in
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

import Foundation
import Sandbox
import TestSupport
import Testing

/// `tokenctl serve`'s life: the socket's lock, a stale socket, draining on SIGTERM,
/// systemd's notify and socket-activation protocols, and the TCP access rules.
@Suite struct ServiceLifecycleTests {
    @Test func aSecondServeOnTheSocketExits75AndLeavesTheFirstServing() async throws {
        let service = try await ServiceHarness.start()
        try await withTeardown({ try await service.shutdown() }) {
            let second = try service.cli.run(["serve", "--socket", service.socket])
            #expect(second.status == 75)
            #expect(second.stderr.contains("pid \(service.process.process.processIdentifier)"))
            #expect(second.stderr.contains("(service.alreadyRunning)"))
            #expect(try service.activate("SN100001").status == 200)
        }
    }

    /// A socket a process without the lock accepts on (systemd's socket, another server):
    /// refused (75), and no lock file is left beside it.
    @Test func aLiveSocketWithoutTheLockIsRefusedAndLeavesNoLockFile() async throws {
        let cli = CLI()
        let socket = cli.directory.file("live.sock")
        let listener = try cli.start(
            [
                "-c",
                "import socket, sys, time; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4); print('up', flush=True); time.sleep(600)",
                socket,
            ], executable: "/usr/bin/python3")
        defer { kill(listener.process.processIdentifier, SIGTERM) }
        // "up" is printed once it listens (the file exists from bind on, before listen).
        // On a loaded machine Python can take many seconds to start: wait for it, not a guess.
        let listening = { ((try? String(contentsOfFile: listener.outPath, encoding: .utf8)) ?? "").contains("up") }
        for _ in 0..<2400 where !listening() { try await Task.sleep(for: .milliseconds(50)) }
        try #require(listening(), "the listener did not start")
        let serve = try cli.start(["serve", "--socket", socket])
        for _ in 0..<1200 where serve.process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        if serve.process.isRunning {
            kill(serve.process.processIdentifier, SIGKILL)
            Issue.record("serve did not refuse the live socket")
        }
        let refused = try serve.finish()
        #expect(refused.status == 75 && refused.stderr.contains("still accepts connections"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket + ".lock"))
    }

    @Test func aStaleSocketIsReplaced() async throws {
        let activation = try await ActivationHarness.start()
        try activation.add("SN100001", "DAPL00000000000001")
        let socket = activation.cli.directory.file("stale/tokenctl.sock")
        try FileManager.default.createDirectory(
            atPath: activation.cli.directory.file("stale"), withIntermediateDirectories: true)
        // A socket file left by a server that died: bound, never unlinked.
        let descriptor = socket.withCString { path -> Int32 in
            let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) {
                $0.copyBytes(from: UnsafeRawBufferPointer(start: path, count: strlen(path)))
            }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            return fd
        }
        close(descriptor)
        #expect(FileManager.default.fileExists(atPath: socket))
        let service = try ServiceHarness.launch(activation, socket: socket)
        try await withTeardown({ try await service.shutdown() }) {
            let answer = try service.activate("SN100001")
            #expect(answer.status == 200)
        }
    }

    @Test(arguments: Backend.allCases)
    func sigtermDrainsTheRequestInFlightAndExitsZero(backend: Backend) async throws {
        let service = try await ServiceHarness.start(
            backend: backend, slowDelay: .seconds(2), passes: [("SN700001", "SBXSLOW0001")])
        try await withTeardown({ try await service.activation.stop() }) {
            let socket = service.socket, cli = service.cli
            let answer = Background {
                try ServiceHarness.curl(
                    cli: cli, socket: socket, "POST", "http://localhost/v1/activations",
                    body: #"{"deeplink": "mybank://activate?serialNumber=SN700001"}"#)
            }
            service.activation.waitForRequests(1)
            kill(service.process.process.processIdentifier, SIGTERM)
            // Draining: /readyz on a new connection is refused or answers 503.
            let result = try service.process.finish()
            let answered = try answer.join()
            #expect(answered.status == 200, "\(answered.body)")
            #expect(try answered.object()["outcome"] as? String == "APPROVED")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: socket))
            let entries = try service.activation.auditEntries()
            #expect(entries.count == 1 && entries[0]["outcome"] as? String == "APPROVED")
            let unfinished = try #require(
                try service.cli.run("audit", "list", "--unfinished", "--json").json() as? [Any])
            #expect(unfinished.isEmpty)
        }
    }

    /// SIGINT drains as SIGTERM does; a second signal while a request is in flight exits at
    /// once (128 + the signal), and the next start closes the attempt it left open.
    @Test func aSecondSignalExitsAtOnce() async throws {
        let service = try await ServiceHarness.start(slowDelay: .seconds(5), passes: [("SN720001", "SBXSLOW0001")])
        try await withTeardown({ try await service.activation.stop() }) {
            let socket = service.socket, cli = service.cli
            // curl itself: the connection ends without an answer.
            let answer = Background {
                try cli.run(
                    executable: "/usr/bin/curl",
                    [
                        "-s", "--unix-socket", socket, "-H", "Content-Type: application/json",
                        "-d", #"{"deeplink": "mybank://activate?serialNumber=SN720001"}"#,
                        "http://localhost/v1/activations",
                    ])
            }
            service.activation.waitForRequests(1)
            let pid = service.process.process.processIdentifier
            let start = ContinuousClock.now
            kill(pid, SIGINT)
            usleep(300_000)
            #expect(
                service.process.process.isRunning, "the first signal drains; the request in flight keeps it running")
            kill(pid, SIGTERM)
            let result = try service.process.finish()
            #expect(result.status == 128 + SIGTERM, "\(result.stderr)")
            #expect(ContinuousClock.now - start < .seconds(4), "it did not wait for the slow answer")
            #expect(result.stderr.contains("service.draining"))
            #expect(try answer.join().status == 52, "curl: empty reply")
            // The attempt left open is closed as interrupted by the next start, never sent again.
            let next = try ServiceHarness.launch(service.activation, socket: socket)
            let entries = try service.activation.auditEntries()
            #expect(
                entries.last?["outcome"] as? String == "UNKNOWN"
                    && entries.last?["errorCode"] as? String == "activation.interrupted", "\(entries)")
            #expect(try next.stop().status == 0)
            #expect(service.sandbox.activationRequestCount == 1)
        }
    }

    @Test func readyzAnswers503WhileDraining() async throws {
        let service = try await ServiceHarness.start(slowDelay: .seconds(2), passes: [("SN710001", "SBXSLOW0001")])
        try await withTeardown({ try await service.activation.stop() }) {
            let socket = service.socket, cli = service.cli
            // One connection kept alive: a slow activation, then /readyz on the same connection.
            let both = Background {
                try cli.run(
                    executable: "/usr/bin/curl",
                    [
                        "-s", "--unix-socket", socket, "-H", "Content-Type: application/json",
                        "-d", #"{"deeplink": "mybank://activate?serialNumber=SN710001"}"#,
                        "http://localhost/v1/activations",
                        "--next", "-s", "--unix-socket", socket, "-w", "\n%{http_code}", "http://localhost/readyz",
                    ])
            }
            service.activation.waitForRequests(1)
            kill(service.process.process.processIdentifier, SIGTERM)
            let output = try both.join()
            #expect(output.stdout.contains(#""outcome": "APPROVED""#))
            #expect(try service.process.finish().status == 0)
            // The second request came after draining began: refused, or 503 on the open connection.
            #expect(output.stdout.hasSuffix("503") || output.stdout.hasSuffix("000"), "\(output.stdout)")
        }
    }

    @Test func sendsReadyAndStoppingToTheNotifySocket() async throws {
        let activation = try await ActivationHarness.start()
        try await withTeardown({ try await activation.stop() }) {
            let path = activation.cli.directory.file("notify.sock")
            let receiver = try DatagramReceiver(path: path)
            let service = try ServiceHarness.launch(activation, environment: ["NOTIFY_SOCKET": path])
            #expect(receiver.receive(timeout: .seconds(10))?.hasPrefix("READY=1") == true)
            let result = try service.stop()
            #expect(result.status == 0)
            #expect(receiver.receive(timeout: .seconds(10)) == "STOPPING=1")
        }
    }

    /// systemd-socket-activate binds the socket, starts serve on the first connection and
    /// passes the socket (LISTEN_FDS): serve adopts it, answers on it, and leaves it in place.
    /// One shell runs the sequence, so the test waits on one process.
    @Test func adoptsASocketPassedBySystemd() async throws {
        let activation = try await ActivationHarness.start()
        try activation.add("SN100001", "DAPL00000000000001")
        try await withTeardown({ try await activation.stop() }) {
            let socket = activation.cli.directory.file("systemd.sock")
            let unused = activation.cli.directory.file("unused/tokenctl.sock")
            let environment = ["TOKENCTL_DATABASE_PATH", "TOKENCTL_TMP_BASE_URL", "HOME"].map { "-E \($0)=\"$\($0)\"" }
                .joined(separator: " ")
            let script = """
                systemd-socket-activate -l '\(socket)' \(environment) -- '\(CLI.binary)' serve --socket '\(unused)' > serve.out 2> serve.err &
                pid=$!
                for i in $(seq 1 500); do [ -S '\(socket)' ] && break; sleep 0.01; done
                curl -s --max-time 30 --unix-socket '\(socket)' -H 'Content-Type: application/json' \
                    -d '{"deeplink": "mybank://activate?serialNumber=SN100001"}' http://localhost/v1/activations
                echo
                kill -TERM $pid
                wait $pid
                echo "exit=$?"
                [ -S '\(socket)' ] && echo "socket kept"
                [ -e '\(unused)' ] || echo "own socket not created"
                cat serve.out
                """
            let result = try activation.cli.run(executable: "/bin/sh", ["-c", script])
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let answer = try #require(
                try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any],
                "\(result.stdout) \(result.stderr)")
            #expect(answer["outcome"] as? String == "APPROVED")
            #expect(lines.contains("exit=0"))
            #expect(lines.contains("socket kept"))
            #expect(lines.contains("own socket not created"))
            #expect(lines.contains("listening unix:\(socket) (systemd)"))
            #expect(activation.sandbox.activationRequestCount == 1)
        }
    }

    @Test func loopbackTCPServesAndABearerTokenIsRequiredWhenConfigured() async throws {
        let activation = try await ActivationHarness.start()
        try activation.add("SN100001", "DAPL00000000000001")
        let tokenFile = activation.cli.write("bearer", "s3cret-token\n")
        chmod(tokenFile, 0o600)
        let service = try ServiceHarness.launch(
            activation, arguments: ["--listen", "127.0.0.1:0"], listeners: 2,
            environment: ["TOKENCTL_SERVICE_AUTH_BEARER_TOKEN_FILE": tokenFile]
        )
        try await withTeardown({ try await service.shutdown() }) {
            let url = try service.tcpURL()
            #expect(url.hasPrefix("http://127.0.0.1:"))
            let body = #"{"deeplink": "mybank://activate?serialNumber=SN100001"}"#
            let missing = try service.request("POST", "/v1/activations", body: body, url: url)
            #expect(missing.status == 401)
            #expect(
                try missing.object()["code"] as? String == "service.unauthorized"
                    && (missing.object()["exitCode"] as? Int) == 77)
            let wrong = try service.request(
                "POST", "/v1/activations", body: body, headers: ["Authorization: Bearer s3cret-tokem"], url: url)
            #expect(wrong.status == 401)
            #expect(service.sandbox.activationRequestCount == 0)
            #expect(try service.request("GET", "/livez", url: url).status == 200)
            #expect(try service.request("GET", "/metrics", url: url).status == 401)
            let right = try service.request(
                "POST", "/v1/activations", body: body, headers: ["Authorization: Bearer s3cret-token"], url: url)
            #expect(right.status == 200)
            // The Unix socket's permission is its access control: no token there.
            #expect(try service.request("GET", "/metrics").status == 200)
        }
    }

    /// Off loopback with TLS and mutual TLS: allowed; a client without the certificate is
    /// refused in the handshake, one with it is served over https.
    @Test func aTLSListenerWithMutualTLSServesOnlyCertifiedClients() async throws {
        let certificates = try TestCertificates()
        let activation = try await ActivationHarness.start()
        try activation.add("SN100001", "DAPL00000000000001")
        let server = certificates.server(.valid)
        chmod(server.key, 0o600)
        let service = try ServiceHarness.launch(
            activation, arguments: ["--listen", "0.0.0.0:0"], listeners: 2,
            environment: [
                "TOKENCTL_SERVICE_TLS_CERT_FILE": server.certificate, "TOKENCTL_SERVICE_TLS_KEY_FILE": server.key,
                "TOKENCTL_SERVICE_TLS_CLIENT_CA_FILE": certificates.ca,
            ])
        try await withTeardown({ try await service.shutdown() }) {
            let url = try service.tcpURL()
            #expect(url.hasPrefix("https://0.0.0.0:"))
            let local = "https://127.0.0.1:" + url.split(separator: ":").last!
            let body = #"{"deeplink": "mybank://activate?serialNumber=SN100001"}"#
            let certified = try service.request(
                "POST", "/v1/activations", body: body, url: local,
                extra: [
                    "--cacert", certificates.ca, "--cert", certificates.clientCertificate, "--key",
                    certificates.clientKey,
                ])
            #expect(certified.status == 200)
            #expect(try certified.object()["outcome"] as? String == "APPROVED")
            let refused = try service.cli.run(
                executable: "/usr/bin/curl", ["-s", "--max-time", "10", "--cacert", certificates.ca, local + "/livez"])
            #expect(refused.status != 0, "a client without a certificate got through: \(refused.stdout)")
            #expect(service.sandbox.activationRequestCount == 1)
            // Health checks without a certificate go to the Unix socket (serve --help, operations.md).
            #expect(try service.request("GET", "/readyz").status == 200)
            #expect(try service.request("GET", "/livez").status == 200)
        }
    }

    /// A refusal names the address as it was given (an IPv6 host in brackets).
    @Test func aRefusedIPv6AddressKeepsItsBrackets() async throws {
        let cli = CLI()
        let refused = try cli.run(["serve", "--socket", cli.directory.file("s.sock"), "--listen", "[::]:18444"])
        #expect(
            refused.status == 78 && refused.stderr.contains("--listen [::]:18444 is not loopback"), "\(refused.stderr)")
    }

    @Test func aNonLoopbackListenerWithoutTLSAndAuthenticationIsRefused() async throws {
        let cli = CLI()
        let refused = try cli.run(["serve", "--socket", cli.directory.file("s.sock"), "--listen", "0.0.0.0:0"])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("not loopback"))
        let badFlag = try cli.run(["serve", "--listen", "nonsense"])
        #expect(badFlag.status == 64)
    }

    @Test func aFullQueueIsRefusedWith503AndRetryAfter() async throws {
        let service = try await ServiceHarness.start(
            environment: ["TOKENCTL_SERVICE_MAX_IN_FLIGHT": "1", "TOKENCTL_SERVICE_QUEUE_LIMIT": "0"],
            slowDelay: .seconds(2),
            passes: [("SN800001", "SBXSLOW0001"), ("SN800002", "DAPL00000000000002")]
        )
        try await withTeardown({ try await service.shutdown() }) {
            let socket = service.socket, cli = service.cli
            let slow = Background {
                try ServiceHarness.curl(
                    cli: cli, socket: socket, "POST", "http://localhost/v1/activations",
                    body: #"{"deeplink": "mybank://activate?serialNumber=SN800001"}"#)
            }
            service.activation.waitForRequests(1)
            let refused = try service.activate("SN800002")
            #expect(refused.status == 503)
            #expect(refused.headers["retry-after"] == "1")
            #expect(
                try refused.object()["code"] as? String == "service.overloaded"
                    && (refused.object()["exitCode"] as? Int) == 75)
            #expect(try slow.join().status == 200)
            #expect(try service.activation.state("SN800002") == ["requiresActivation"])
            #expect(try service.activate("SN800002").status == 200)
        }
    }
}

/// A Unix datagram socket that receives what the service sends to `$NOTIFY_SOCKET`.
final class DatagramReceiver: @unchecked Sendable {
    private let descriptor: Int32

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(status == 0)
    }

    deinit { close(descriptor) }

    func receive(timeout: Duration) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout.components.seconds * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }
}

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A request the sandbox received, as it arrived on the wire.
public struct RecordedRequest: Sendable {
    public var method: String
    public var path: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// What followed `?` in the request target, as sent.
    public var query: String = ""
    /// The number of the connection it came on, in the order they were accepted (from 1).
    public var connection: Int = 0

    /// The first value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A loopback TMP simulator. It speaks HTTP/1.1 with keep-alive, answers
/// `POST …/issuer/push-provisioning/tokens/activations` per ``TMPMarker``, counts what it
/// received (`GET /_sandbox/stats` reports the count), serves the PowerAuth endpoints
/// (`/pa/v3/…`, see ``PowerAuthServer``) and the onboarding activation process
/// (`/api/onboarding/…`, see ``OnboardingServer``), the MIRACL platform (`/rps/…`, `/authorize`,
/// `/dta2/…`, `/oidc/token`, see ``MIRACLPlatform``) with its relying party (`/rp/…`), a
/// transparency log witness (`/add-checkpoint`, see ``WitnessServer``), and answers 404 to
/// anything else.
public final class TMPSandbox: Sendable {
    /// The port it listens on (useful when started on port 0).
    public let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let recorder: Recorder

    /// The simulated PowerAuth server (`/pa/v3/…`).
    public let powerAuth: PowerAuthServer

    /// The simulated onboarding server (`/api/onboarding/…`).
    public let onboarding: OnboardingServer

    /// The simulated MIRACL platform of the PIN login.
    public let miracl: MIRACLPlatform

    /// The audit log's witness (`POST /add-checkpoint`).
    public let witness: WitnessServer

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Activation requests received so far.
    public var activationRequestCount: Int { recorder.activations.withLockedValue { $0 } }

    /// TCP connections accepted so far.
    public var connectionCount: Int { recorder.connections.withLockedValue { $0 } }

    /// The requests received so far, in arrival order (the first ``Recorder/keptRequests``;
    /// a load test's later requests are only counted).
    public var requests: [RecordedRequest] { recorder.requests.withLockedValue { $0 } }

    /// The `tokenUniqueReference` of each activation request among ``requests``, in arrival order.
    public var activatedReferences: [String] {
        requests.filter { $0.path.hasSuffix("/tokens/activations") }.compactMap { request in
            (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["tokenUniqueReference"]
                as? String
        }
    }

    /// Starts listening on 127.0.0.1.
    /// - Parameters:
    ///   - port: 0 picks a free port.
    ///   - slowDelay: how long ``TMPMarker/slow`` waits before answering.
    ///   - log: receives one line per request (method, path, marker), never a body.
    ///   - powerAuth: the PowerAuth server side; by default one with a freshly generated identity.
    ///   - onboarding: how the onboarding server behaves (its clock, OTPs, verification switch).
    ///   - miracl: how the MIRACL platform and relying party behave (client id, clock).
    ///   - witness: the transparency log witness; by default one that knows no log.
    public static func start(
        port: Int = 8787, slowDelay: Duration = .seconds(5), powerAuth: PowerAuthServer = PowerAuthServer(),
        onboarding options: OnboardingOptions = OnboardingOptions(),
        miracl miraclOptions: MIRACLOptions = MIRACLOptions(),
        witness: WitnessServer = WitnessServer(logs: []), log: (@Sendable (String) -> Void)? = nil
    ) async throws -> TMPSandbox {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let recorder = Recorder()
        let onboarding = OnboardingServer(powerAuth: powerAuth, options: options, log: log)
        let miracl = MIRACLPlatform(options: miraclOptions, log: log)
        let relyingParty = RelyingParty(platform: miracl)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let connection = recorder.connections.withLockedValue { count in
                    count += 1
                    return count
                }
                return channel.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMap {
                    channel.pipeline.addHandler(
                        SandboxHandler(
                            recorder: recorder, powerAuth: powerAuth, onboarding: onboarding, miracl: miracl,
                            relyingParty: relyingParty, witness: witness, slowDelay: slowDelay, connection: connection,
                            log: log
                        ))
                }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        do {
            let channel = try await bootstrap.bind(host: "127.0.0.1", port: port).get()
            return TMPSandbox(
                port: channel.localAddress?.port ?? port, channel: channel, group: group, recorder: recorder,
                powerAuth: powerAuth, onboarding: onboarding, miracl: miracl, witness: witness)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private init(
        port: Int, channel: any Channel, group: MultiThreadedEventLoopGroup, recorder: Recorder,
        powerAuth: PowerAuthServer, onboarding: OnboardingServer, miracl: MIRACLPlatform, witness: WitnessServer
    ) {
        self.witness = witness
        self.powerAuth = powerAuth
        self.miracl = miracl
        self.onboarding = onboarding
        self.port = port
        self.channel = channel
        self.group = group
        self.recorder = recorder
    }

    /// Runs until the listening channel closes.
    public func waitUntilClosed() async throws {
        try await channel.closeFuture.get()
    }

    /// Stops listening and closes every connection.
    public func shutdown() async throws {
        try? await channel.close()
        try await group.shutdownGracefully()
    }
}

final class Recorder: Sendable {
    /// Enough for any test; a load test runs on without the log growing.
    static let keptRequests = 100_000

    let requests = NIOLockedValueBox<[RecordedRequest]>([])
    let activations = NIOLockedValueBox(0)
    let connections = NIOLockedValueBox(0)

    /// Records a request and returns the activation count including it.
    func record(_ request: RecordedRequest) -> Int {
        requests.withLockedValue { if $0.count < Self.keptRequests { $0.append(request) } }
        return activations.withLockedValue { count in
            if request.isActivation { count += 1 }
            return count
        }
    }
}

extension RecordedRequest {
    var isActivation: Bool { method == "POST" && path.hasSuffix(TMPBehaviour.activationPath) }
}

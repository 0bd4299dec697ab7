@preconcurrency import Crypto
import Foundation
import PowerAuth
import Synchronization

/// The server side of PowerAuth 3.2 as the sandbox simulates it: custom-credential
/// activation, activation status, signature and token verification. It uses the
/// PowerAuth primitives only, never the client's logic.
public final class PowerAuthServer: Sendable {
    public let identity: PowerAuthServerIdentity
    let identityCheck: IdentityCheck
    /// Checks for particular `credentialsType` attribute values, tried before ``identityCheck``.
    let credentialChecks = Mutex<[String: IdentityCheck]>([:])
    let activations = Mutex<[String: ServerActivation]>([:])
    let tokens = Mutex<[String: ServerToken]>([:])
    let replayGuard = EciesReplayGuard()
    let tokenReplayGuard = EciesReplayGuard()

    struct ServerToken {
        var activationId: String
        var secret: [UInt8]
        var factor: SignatureFactor
    }

    public init(
        identity: PowerAuthServerIdentity = .generate(),
        identityCheck: @escaping IdentityCheck = IdentityChecks.acceptNonEmpty
    ) {
        self.identity = identity
        self.identityCheck = identityCheck
    }

    /// The paths this server answers, `POST` only.
    static let paths: Set<String> = [
        "/pa/v3/activation/create", "/pa/v3/activation/status", "/pa/v3/activation/remove",
        "/pa/v3/token/create", "/pa/v3/token/validate", "/pa/v3/signature/validate", "/pa/v3/status",
    ]

    func handle(_ request: RecordedRequest) -> SandboxReply? {
        guard Self.paths.contains(request.path) else { return nil }
        guard request.method == "POST" else { return Self.error(405, "ERROR_GENERIC", "use POST") }
        switch request.path {
        case "/pa/v3/activation/create": return createActivation(request)
        case "/pa/v3/activation/status": return activationStatus(request)
        case "/pa/v3/activation/remove": return removeActivation(request)
        case "/pa/v3/token/create": return createToken(request)
        case "/pa/v3/token/validate": return validateToken(request)
        case "/pa/v3/signature/validate": return validateSignature(request)
        default: return Self.ok(["serverTime": EciesClock.nowMilliseconds(), "version": PowerAuthVersion.current])
        }
    }

    /// Sends custom activations whose `credentialsType` attribute is `type` to `check`.
    public func route(credentialsType type: String, to check: @escaping IdentityCheck) {
        credentialChecks.withLock { $0[type] = check }
    }

    func check(_ attributes: [String: String], activationId: String) -> IdentityDecision {
        let routed = attributes["credentialsType"].flatMap { type in credentialChecks.withLock { $0[type] } }
        return (routed ?? identityCheck)(attributes, activationId)
    }

    // MARK: Inspection (tests, the onboarding simulator)

    public var activationCount: Int { activations.withLock { $0.count } }

    public func activationFlags(_ id: String) -> [String]? { activations.withLock { $0[id]?.flags } }

    public func setActivationFlags(_ id: String, _ flags: [String]) {
        activations.withLock { $0[id]?.flags = flags }
    }

    public func failedAttempts(_ id: String) -> Int? { activations.withLock { $0[id].map { Int($0.failedAttempts) } } }

    /// Removes a device activation (as an onboarding cleanup does).
    public func removeActivation(id: String) {
        activations.withLock { $0[id]?.state = .removed }
    }

    // MARK: Replies

    static func ok(_ responseObject: [String: Any]? = nil) -> SandboxReply {
        var object: [String: Any] = ["status": "OK"]
        if let responseObject { object["responseObject"] = responseObject }
        return .respond(status: 200, headers: jsonHeaders, body: json(object))
    }

    static func error(_ status: Int, _ code: String, _ message: String, extra: [String: Any] = [:]) -> SandboxReply {
        var object: [String: Any] = ["status": "ERROR", "responseObject": ["code": code, "message": message]]
        object.merge(extra) { $1 }
        return .respond(status: status, headers: jsonHeaders, body: json(object))
    }

    static func encrypted(_ payload: EciesPayload) -> SandboxReply {
        let body = (try? JSONEncoder().encode(payload)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return .respond(status: 200, headers: jsonHeaders, body: body)
    }

    static let jsonHeaders = [("Content-Type", "application/json")]

    static func json(_ object: Any) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    static func payload(_ bytes: [UInt8]) -> EciesPayload? {
        try? JSONDecoder().decode(EciesPayload.self, from: Data(bytes))
    }

    static func payload(_ object: Any?) -> EciesPayload? {
        guard let object, let data = try? JSONSerialization.data(withJSONObject: object) else { return nil }
        return try? JSONDecoder().decode(EciesPayload.self, from: data)
    }
}

@preconcurrency import Crypto
import Foundation
import HTTPTransport
import PowerAuth
import WalletModel

/// The client side of PowerAuth 3.2 for one instance: custom-credential device
/// activation, activation status, signed requests, MAC tokens.
public struct PowerAuthClient: Sendable {
    public let settings: PowerAuthSettings
    let transport: any HTTPTransport
    let activations: DeviceActivationStore

    public init(settings: PowerAuthSettings, transport: any HTTPTransport, store: any DeviceActivationRecords) {
        self.settings = settings
        self.transport = transport
        activations = DeviceActivationStore(records: store)
    }

    /// The stored activation, if any.
    public func activation() async throws -> DeviceActivation? {
        try await activations.load(settings.instanceID)
    }

    func requireActivation() async throws -> DeviceActivation {
        guard let activation = try await activations.load(settings.instanceID) else {
            throw PowerAuthClientError.notActivated(instance: settings.instanceID)
        }
        return activation
    }

    /// Forgets the local activation without telling the server; false when there was none.
    public func forget() async throws -> Bool {
        try await activations.delete(settings.instanceID)
    }

    // MARK: HTTP

    struct Reply {
        var status: Int
        var body: [UInt8]
        var object: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
        var errorObject: [String: Any]? { object?["responseObject"] as? [String: Any] }
    }

    func post(_ path: String, headers: [(name: String, value: String)] = [], body: [UInt8]) async throws -> Reply {
        do {
            let response = try await transport.send(
                JSONPost.request(baseURL: settings.baseURL, path: path, headers: headers, body: body))
            return Reply(status: response.status, body: response.body)
        } catch {
            throw PowerAuthClientError.unreachable(error)
        }
    }

    /// Turns a non-200 answer into the matching error.
    func check(_ reply: Reply) throws {
        guard reply.status != 200 else { return }
        let code = reply.errorObject?["code"] as? String ?? "no error code"
        let message = reply.errorObject?["message"] as? String ?? "HTTP \(reply.status)"
        if reply.status == 401 { throw PowerAuthClientError.authenticationFailed(message: "\(code): \(message)") }
        if reply.status >= 500 {
            throw PowerAuthClientError.serverError(status: reply.status, message: "\(code): \(message)")
        }
        throw PowerAuthClientError.protocolError("HTTP \(reply.status), \(code): \(message)")
    }

    static func json(_ object: Any) -> [UInt8] {
        Array(
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
                ?? Data("{}".utf8))
    }

    static func object(_ bytes: [UInt8], _ what: String) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else {
            throw PowerAuthClientError.protocolError("\(what) is not a JSON object")
        }
        return object
    }

    static func payload(_ bytes: [UInt8], _ what: String) throws -> EciesPayload {
        guard let payload = try? JSONDecoder().decode(EciesPayload.self, from: Data(bytes)) else {
            throw PowerAuthClientError.protocolError("\(what) is not an encrypted payload")
        }
        return payload
    }

    static func decrypt(
        _ payload: EciesPayload, with decryptor: EciesResponseDecryptor, _ what: String
    ) throws -> [UInt8] {
        do { return try decryptor.decryptResponse(payload) } catch let error as PowerAuthError {
            throw PowerAuthClientError.protocolError("\(what): \(error.description)")
        }
    }

    // MARK: Signatures

    /// Signs `body` for `uriIdentifier` with the next counter value (committed
    /// before the request leaves) and returns the `X-PowerAuth-Authorization` value.
    func authorizationHeader(
        _ activation: DeviceActivation, uriIdentifier: String, body: [UInt8], factor: SignatureFactor, pin: [UInt8]?
    ) async throws -> String {
        var keys: [[UInt8]] = []
        for key in factor.keys {
            switch key {
            case .possession: keys.append(activation.possessionKey)
            case .knowledge:
                guard let pin, !pin.isEmpty else {
                    throw PowerAuthClientError.invalidPIN(
                        "signature type \(factor.rawValue) needs the PIN (--pin-file, or a prompt on a terminal)")
                }
                keys.append(try activation.knowledgeKey.unlock(pin: pin))
            case .biometry: throw PowerAuthClientError.unsupportedFactor(factor)
            }
        }
        guard let counter = try await activations.takeCounter(activation.instanceID) else {
            throw PowerAuthClientError.notActivated(instance: activation.instanceID)
        }
        let nonce = Bytes.random(16)
        let data = Signature.normalizedData(
            method: "POST", uriIdentifier: uriIdentifier, nonce: nonce, body: body,
            applicationSecret: settings.applicationSecret)
        let signature = Signature.online(data: data, keys: keys, counter: counter)
        return
            "PowerAuth pa_activation_id=\"\(activation.activationID)\", pa_application_key=\"\(settings.applicationKey)\", "
            + "pa_nonce=\"\(Bytes.base64String(nonce))\", pa_signature_type=\"\(factor.rawValue)\", "
            + "pa_signature=\"\(signature)\", pa_version=\"\(PowerAuthVersion.current)\""
    }

    /// The URI identifier PowerAuth signs for a standard endpoint (`/pa/v3/x` → `/pa/x`);
    /// other paths sign as themselves.
    public static func uriIdentifier(for path: String) -> String {
        path.hasPrefix("/pa/v3/") ? "/pa/" + path.dropFirst("/pa/v3/".count) : path
    }

    /// A signed POST; answers the response body of an HTTP 200.
    public func signedRequest(
        path: String, body: [UInt8], factor: SignatureFactor, pin: [UInt8]?
    ) async throws -> [UInt8] {
        let activation = try await requireActivation()
        let header = try await authorizationHeader(
            activation, uriIdentifier: Self.uriIdentifier(for: path), body: body, factor: factor, pin: pin)
        let reply = try await post(path, headers: [("X-PowerAuth-Authorization", header)], body: body)
        try await explainingAuthFailure(factor: factor) { try check(reply) }
        return reply.body
    }

    /// A 401 on a signed request says little: ask the activation status what it was. A BLOCKED
    /// activation names the way out; with the knowledge factor on an ACTIVE one, the PIN was
    /// wrong and the status says how many attempts are left.
    func explainingAuthFailure(factor: SignatureFactor, _ body: () throws -> Void) async throws {
        do {
            try body()
        } catch PowerAuthClientError.authenticationFailed(let message) {
            guard let status = try? await status() else {
                throw PowerAuthClientError.authenticationFailed(message: message)
            }
            if status.state == "BLOCKED" { throw PowerAuthClientError.blocked }
            if factor.keys.contains(.knowledge), status.state == "ACTIVE" {
                throw PowerAuthClientError.wrongPIN(
                    remainingAttempts: max(0, Int(status.blob.maxFailedAttempts) - Int(status.blob.failedAttempts)))
            }
            throw PowerAuthClientError.authenticationFailed(message: message)
        }
    }

    /// A POST authenticated with the stored MAC token.
    public func tokenRequest(path: String, body: [UInt8]) async throws -> [UInt8] {
        let activation = try await requireActivation()
        guard let token = activation.token else {
            throw PowerAuthClientError.noToken(instance: activation.instanceID)
        }
        let reply = try await post(path, headers: [("X-PowerAuth-Token", Self.tokenHeader(token))], body: body)
        try check(reply)
        return reply.body
    }

    /// The `X-PowerAuth-Token` value: a fresh nonce and timestamp, and their digest.
    static func tokenHeader(_ token: DeviceActivation.Token) -> String {
        let nonce = Bytes.random(16)
        let timestamp = EciesClock.nowMilliseconds()
        let digest = TokenDigest.compute(tokenSecret: token.secret, nonce: nonce, timestampMilliseconds: timestamp)
        return "PowerAuth token_id=\"\(token.id)\", token_digest=\"\(Bytes.base64String(digest))\", "
            + "nonce=\"\(Bytes.base64String(nonce))\", timestamp=\"\(timestamp)\", version=\"\(PowerAuthVersion.current)\""
    }
}

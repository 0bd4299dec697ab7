import Foundation
import PowerAuth

extension PowerAuthServer {
    enum Verified<Value> {
        case success(Value)
        case failure(SandboxReply)
    }

    /// Checks `X-PowerAuth-Authorization` against `body` (the request body unless given:
    /// a signed-then-encrypted request is signed over its plaintext); on success the
    /// activation's counter has moved past the signature's.
    func verifySignature(_ request: RecordedRequest, uriIdentifier: String, body: [UInt8]? = nil) -> Verified<String> {
        guard let fields = PowerAuthHeaderFields.parse(request.header("X-PowerAuth-Authorization")),
            let id = fields["pa_activation_id"], let nonceText = fields["pa_nonce"],
            let nonce = Bytes.base64(nonceText),
            let factor = fields["pa_signature_type"].flatMap(SignatureFactor.init(rawValue:)),
            let signature = fields["pa_signature"]
        else {
            return .failure(
                Self.error(401, "POWERAUTH_AUTH_FAIL", "missing or malformed X-PowerAuth-Authorization header"))
        }
        guard fields["pa_version"] == PowerAuthVersion.current else {
            return .failure(Self.error(401, "POWERAUTH_AUTH_FAIL", "unsupported pa_version"))
        }
        guard fields["pa_application_key"] == identity.applicationKey else {
            return .failure(Self.error(401, "POWERAUTH_AUTH_FAIL", "unknown application key"))
        }
        let data = Signature.normalizedData(
            method: request.method, uriIdentifier: uriIdentifier, nonce: nonce, body: body ?? request.body,
            applicationSecret: identity.applicationSecret)
        let accepted: Bool? = activations.withLock { table in
            guard var activation = table[id], activation.state == .active else { return nil }
            let result = activation.verify(signature: signature, factor: factor, data: data)
            table[id] = activation
            return result
        }
        switch accepted {
        case .none: return .failure(Self.error(401, "POWERAUTH_AUTH_FAIL", "activation is not active"))
        case .some(false): return .failure(Self.error(401, "POWERAUTH_AUTH_FAIL", "signature validation failed"))
        case .some(true): return .success(id)
        }
    }

    /// The activation a signature header names, without checking the signature (to find
    /// the keys that decrypt the body it was made over).
    static func signingActivation(_ request: RecordedRequest) -> String? {
        PowerAuthHeaderFields.parse(request.header("X-PowerAuth-Authorization"))?["pa_activation_id"]
    }

    /// An activation-scope ECIES decryptor for an active activation.
    func activationDecryptor(_ id: String, sharedInfo1: String) -> EciesDecryptor? {
        guard let activation = activations.withLock({ $0[id] }), activation.state == .active else { return nil }
        return EciesDecryptor(
            privateKey: activation.serverPrivateKey,
            parameters: .activation(
                sharedInfo1: sharedInfo1, applicationKey: identity.applicationKey,
                applicationSecret: identity.applicationSecret, activationId: id, transportKey: activation.keys.transport
            ))
    }

    /// `POST /pa/v3/signature/validate`: answers `{"status":"OK"}` (nothing more, like a
    /// real server) to a valid signature of any factor.
    func validateSignature(_ request: RecordedRequest) -> SandboxReply {
        switch verifySignature(request, uriIdentifier: "/pa/signature/validate") {
        case .failure(let reply): return reply
        case .success: return Self.ok()
        }
    }

    /// `POST /pa/v3/token/create`: signed, and ECIES in activation scope (`/pa/token/create`).
    func createToken(_ request: RecordedRequest) -> SandboxReply {
        let factor =
            PowerAuthHeaderFields.parse(request.header("X-PowerAuth-Authorization"))?["pa_signature_type"].flatMap(
                SignatureFactor.init(rawValue:)) ?? .possession
        switch verifySignature(request, uriIdentifier: "/pa/token/create") {
        case .failure(let reply): return reply
        case .success(let id):
            guard let activation = activations.withLock({ $0[id] }), let payload = Self.payload(request.body) else {
                return Self.error(400, "ERR_ENCRYPTION", "body is not an encrypted payload")
            }
            let decryptor = EciesDecryptor(
                privateKey: activation.serverPrivateKey,
                parameters: .activation(
                    sharedInfo1: EciesParameters.SharedInfo1.tokenCreate, applicationKey: identity.applicationKey,
                    applicationSecret: identity.applicationSecret, activationId: id,
                    transportKey: activation.keys.transport))
            do {
                try replayGuard.check(payload)
                let response = try decryptor.decryptRequest(payload).response
                let token = ServerToken(activationId: id, secret: Bytes.random(16), factor: factor)
                let tokenId = UUID().uuidString.lowercased()
                tokens.withLock { $0[tokenId] = token }
                let answer = Self.json(["tokenId": tokenId, "tokenSecret": Bytes.base64String(token.secret)])
                return Self.encrypted(try response.encryptResponse(Bytes.utf8(answer)))
            } catch let error as PowerAuthError {
                return Self.error(400, "ERR_ENCRYPTION", error.description)
            } catch {
                return Self.error(500, "ERROR_GENERIC", "token creation failed")
            }
        }
    }

    /// Checks `X-PowerAuth-Token`: known token of an active activation, fresh
    /// timestamp, unused nonce, matching digest. Returns the activation id.
    func verifyToken(_ request: RecordedRequest) -> Verified<String> {
        guard let fields = PowerAuthHeaderFields.parse(request.header("X-PowerAuth-Token")),
            let tokenId = fields["token_id"], let digestText = fields["token_digest"],
            let digest = Bytes.base64(digestText),
            let nonceText = fields["nonce"], let nonce = Bytes.base64(nonceText),
            let timestamp = fields["timestamp"].flatMap(Int64.init), let version = fields["version"]
        else {
            return .failure(Self.error(401, "POWERAUTH_AUTH_FAIL", "missing or malformed X-PowerAuth-Token header"))
        }
        guard version == PowerAuthVersion.current else {
            return .failure(Self.error(401, "POWERAUTH_AUTH_FAIL", "unsupported token version"))
        }
        guard let token = tokens.withLock({ $0[tokenId] }),
            activations.withLock({ $0[token.activationId]?.state }) == .active
        else { return .failure(Self.error(401, "POWERAUTH_AUTH_FAIL", "unknown token")) }
        let expected = TokenDigest.compute(
            tokenSecret: token.secret, nonce: nonce, timestampMilliseconds: timestamp, version: version)
        guard Bytes.constantTimeEqual(expected, digest) else {
            return .failure(Self.error(401, "POWERAUTH_AUTH_FAIL", "token digest mismatch"))
        }
        do {
            try tokenReplayGuard.check(timestamp: timestamp, nonce: nonce)
        } catch PowerAuthError.staleTimestamp {
            return .failure(Self.error(401, "POWERAUTH_AUTH_FAIL", "token timestamp outside the accepted window"))
        } catch {
            return .failure(Self.error(401, "POWERAUTH_AUTH_FAIL", "token nonce already used"))
        }
        return .success(token.activationId)
    }

    /// `POST /pa/v3/token/validate` (a sandbox endpoint): OK for a valid token header.
    func validateToken(_ request: RecordedRequest) -> SandboxReply {
        switch verifyToken(request) {
        case .failure(let reply): return reply
        case .success(let id): return Self.ok(["activationId": id])
        }
    }
}

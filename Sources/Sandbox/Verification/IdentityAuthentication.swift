import Foundation
import PowerAuth

/// How an identity verification endpoint authenticates its caller, as the enrollment
/// server's annotations say: a possession signature with uriId = the path, the device's
/// MAC token, and ECIES in activation scope (`/pa/generic/activation`), signed before
/// it is encrypted.
struct IdentityAuthentication {
    enum Credential { case signature, token, none }

    let credential: Credential
    let encrypted: Bool

    static let signature = Self(credential: .signature, encrypted: false)
    static let token = Self(credential: .token, encrypted: false)
    static let signedEncrypted = Self(credential: .signature, encrypted: true)
    static let tokenEncrypted = Self(credential: .token, encrypted: true)
    static let encryptedOnly = Self(credential: .none, encrypted: true)
}

/// An authenticated identity call: whose device, its `requestObject`, and how to encrypt
/// the answer when the request was encrypted.
struct IdentityCall {
    let activationID: String
    let object: [String: Any]
    let response: EciesResponseEncryptor?

    /// The OK envelope, encrypted when the request was.
    func ok(_ responseObject: [String: Any]? = nil) -> SandboxReply {
        guard let response else { return PowerAuthServer.ok(responseObject) }
        var envelope: [String: Any] = ["status": "OK"]
        if let responseObject { envelope["responseObject"] = responseObject }
        guard let payload = try? response.encryptResponse(Bytes.utf8(PowerAuthServer.json(envelope))) else {
            return PowerAuthServer.error(500, "ERROR_GENERIC", "encryption failed")
        }
        return PowerAuthServer.encrypted(payload)
    }
}

extension OnboardingServer {
    /// Authenticates `request` as `authentication` says: decrypts first (the signature covers
    /// the plaintext), then checks the signature or token. A bad signature or token is 401
    /// `POWERAUTH_AUTH_FAIL`; an undecryptable body or a missing `requestObject` is 500
    /// `ERROR_GENERIC`, as on the real server.
    func authenticate(
        _ request: RecordedRequest, _ authentication: IdentityAuthentication
    ) -> PowerAuthServer.Verified<IdentityCall> {
        let authFailed = PowerAuthServer.error(401, "POWERAUTH_AUTH_FAIL", "authentication failed")
        var plaintext = request.body
        var response: EciesResponseEncryptor?
        if authentication.encrypted {
            let encryption = PowerAuthHeaderFields.parse(request.header("X-PowerAuth-Encryption"))
            let signed = authentication.credential == .signature
            // The encryption header is sent only when the request is not signed.
            guard
                signed
                    || (encryption?["version"] == PowerAuthVersion.current
                        && encryption?["application_key"] == powerAuth.identity.applicationKey)
            else {
                return .failure(authFailed)
            }
            guard let activationID = signed ? PowerAuthServer.signingActivation(request) : encryption?["activation_id"],
                let decryptor = powerAuth.activationDecryptor(
                    activationID, sharedInfo1: EciesParameters.SharedInfo1.genericActivation)
            else { return .failure(authFailed) }
            do {
                guard let payload = PowerAuthServer.payload(request.body) else {
                    throw PowerAuthError.malformedPayload("body is not an encrypted payload")
                }
                try replayGuard.check(payload)
                (plaintext, response) = try decryptor.decryptRequest(payload)
            } catch {
                return .failure(PowerAuthServer.error(500, "ERROR_GENERIC", "the request does not decrypt"))
            }
        }
        let activationID: String
        switch authentication.credential {
        case .signature:
            guard
                PowerAuthHeaderFields.parse(request.header("X-PowerAuth-Authorization"))?["pa_signature_type"]
                    == SignatureFactor.possession.rawValue
            else {
                return .failure(
                    PowerAuthServer.error(401, "POWERAUTH_AUTH_FAIL", "this endpoint takes a possession signature"))
            }
            switch powerAuth.verifySignature(request, uriIdentifier: request.path, body: plaintext) {
            case .failure(let reply): return .failure(reply)
            case .success(let id): activationID = id
            }
        case .token:
            switch powerAuth.verifyToken(request) {
            case .failure(let reply): return .failure(reply)
            case .success(let id): activationID = id
            }
            if authentication.encrypted,
                PowerAuthHeaderFields.parse(request.header("X-PowerAuth-Encryption"))?["activation_id"] != activationID
            {
                return .failure(authFailed)
            }
        case .none:
            guard let id = PowerAuthHeaderFields.parse(request.header("X-PowerAuth-Encryption"))?["activation_id"]
            else { return .failure(authFailed) }
            activationID = id
        }
        guard let object = PowerAuthServer.object(plaintext)?["requestObject"] as? [String: Any] else {
            return .failure(PowerAuthServer.error(500, "ERROR_GENERIC", "requestObject missing"))
        }
        return .success(IdentityCall(activationID: activationID, object: object, response: response))
    }
}

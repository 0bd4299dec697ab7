import Foundation
import HTTPTransport
import PowerAuth

/// The enrollment server's identity verification endpoints on the wire: each call's
/// authentication as the server's annotations require, the envelope, and its timeout.
///
/// - "signature": a possession signature over the plaintext body, uriId = the path;
/// - "token": `X-PowerAuth-Token` of the device's possession token (created when missing,
///   recreated once when the server refuses it);
/// - "encrypted": ECIES in activation scope (`/pa/generic/activation`), applied after
///   signing; `X-PowerAuth-Encryption` only when the request is not signed.
struct IdentityAPI {
    enum Credential { case signature, token, none }

    struct Authentication {
        let credential: Credential
        let encrypted: Bool

        static let signature = Self(credential: .signature, encrypted: false)
        static let token = Self(credential: .token, encrypted: false)
        static let signedEncrypted = Self(credential: .signature, encrypted: true)
        static let tokenEncrypted = Self(credential: .token, encrypted: true)
        static let encryptedOnly = Self(credential: .none, encrypted: true)
    }

    /// The contract's timeouts.
    enum Timeout: Int, CaseIterable {
        case documentSubmit = 180_000
        case documentStatus = 120_000
        case other = 20_000
    }

    /// The onboarding (enrollment) server.
    let baseURL: String
    let powerAuth: PowerAuthClient
    /// One transport per timeout.
    let transports: [Timeout: any HTTPTransport]

    /// Posts `{"requestObject": object}` to `path` and answers the `responseObject`.
    func call(
        _ path: String, _ object: [String: Any], _ authentication: Authentication, timeout: Timeout = .other
    ) async throws -> [String: Any] {
        do {
            return try await attempt(path, object, authentication, timeout: timeout, renewToken: false)
        } catch let error as OnboardingError where authentication.credential == .token && error.httpStatus == 401 {
            return try await attempt(path, object, authentication, timeout: timeout, renewToken: true)
        }
    }

    private func attempt(
        _ path: String, _ object: [String: Any], _ authentication: Authentication, timeout: Timeout, renewToken: Bool
    ) async throws -> [String: Any] {
        let activation = try await powerAuth.requireActivation()
        let plaintext = OnboardingEnvelope.request(object)
        var headers: [(name: String, value: String)] = []
        var body = plaintext
        var decryptor: EciesResponseDecryptor?
        if authentication.encrypted {
            guard let serverKey = try? P256Keys.publicKey(activation.serverPublicKey) else {
                throw PowerAuthClientError.protocolError("stored server public key is invalid")
            }
            let settings = powerAuth.settings
            let request = try EciesEncryptor(
                publicKey: serverKey,
                parameters: .activation(
                    sharedInfo1: EciesParameters.SharedInfo1.genericActivation, applicationKey: settings.applicationKey,
                    applicationSecret: settings.applicationSecret, activationId: activation.activationID,
                    transportKey: activation.transportKey
                )
            ).encryptRequest(plaintext)
            body = Array(try JSONEncoder().encode(request.payload))
            decryptor = request.response
            if authentication.credential != .signature {
                headers.append(
                    (
                        "X-PowerAuth-Encryption",
                        "PowerAuth version=\"\(PowerAuthVersion.current)\", application_key=\"\(settings.applicationKey)\", activation_id=\"\(activation.activationID)\""
                    ))
            }
        }
        switch authentication.credential {
        case .signature:
            let authorization = try await powerAuth.authorizationHeader(
                activation, uriIdentifier: path, body: plaintext, factor: .possession, pin: nil)
            headers.append(("X-PowerAuth-Authorization", authorization))
        case .token:
            headers.append(
                (
                    "X-PowerAuth-Token",
                    PowerAuthClient.tokenHeader(try await possessionToken(activation, renew: renewToken))
                ))
        case .none:
            break
        }
        let response: HTTPResponse
        do {
            response = try await transports[timeout]!.send(
                JSONPost.request(baseURL: baseURL, path: path, headers: headers, body: body))
        } catch {
            throw OnboardingError(error)
        }
        let envelope =
            try decryptor.map { decryptor throws(OnboardingError) in
                try OnboardingAPI.plaintext(response, decryptor: decryptor)
            } ?? response.body
        return try OnboardingEnvelope.decode(httpStatus: response.status, body: envelope)
    }

    /// The device's `possession_universal` token: the stored one when it is a possession
    /// token, else (or when `renew`) a new one.
    private func possessionToken(_ activation: DeviceActivation, renew: Bool) async throws -> DeviceActivation.Token {
        if !renew, let token = activation.token, token.factor == .possession { return token }
        return try await powerAuth.createToken(factor: .possession, pin: nil)
    }
}

@preconcurrency import Crypto
import Foundation
import HTTPTransport
import PowerAuth

/// The activation-process endpoints of the onboarding server (`/api/onboarding/…`).
/// Each request and its OK answer travel ECIES-encrypted in application scope
/// (`/pa/generic/application`); error envelopes come back in the clear.
public struct OnboardingAPI: Sendable {
    /// Where `/api/onboarding/…` lives.
    public let baseURL: String
    let powerAuth: PowerAuthSettings
    let transport: any HTTPTransport

    public init(baseURL: String, powerAuth: PowerAuthSettings, transport: any HTTPTransport) {
        self.baseURL = baseURL
        self.powerAuth = powerAuth
        self.transport = transport
    }

    /// `/api/onboarding/start` with the app-defined identification object.
    func start(identification: [String: Any]) async throws(OnboardingError) -> [String: Any] {
        try await call("/api/onboarding/start", ["identification": identification])
    }

    func status(processID: String) async throws(OnboardingError) -> [String: Any] {
        try await call("/api/onboarding/status", ["processId": processID])
    }

    func resendOTP(processID: String) async throws(OnboardingError) {
        _ = try await call("/api/onboarding/otp/resend", ["processId": processID])
    }

    func cleanup(processID: String) async throws(OnboardingError) {
        _ = try await call("/api/onboarding/cleanup", ["processId": processID])
    }

    /// `/api/onboarding/otp/detail`, offered by demo servers only.
    /// - Parameter type: `ACTIVATION` or `USER_VERIFICATION`.
    func otpDetail(processID: String, type: String = "ACTIVATION") async throws(OnboardingError) -> [String: Any] {
        try await call("/api/onboarding/otp/detail", ["processId": processID, "otpType": type])
    }

    /// Encrypts `{"requestObject": object}`, posts it, and answers the decrypted `responseObject`.
    func call(_ path: String, _ object: [String: Any]) async throws(OnboardingError) -> [String: Any] {
        let request: (payload: EciesPayload, response: EciesResponseDecryptor)
        do {
            let masterKey = try P256Keys.publicKey(powerAuth.masterServerPublicKey, what: "master server public key")
            request = try EciesEncryptor(
                publicKey: masterKey,
                parameters: .application(
                    sharedInfo1: EciesParameters.SharedInfo1.genericApplication,
                    applicationKey: powerAuth.applicationKey, applicationSecret: powerAuth.applicationSecret
                )
            ).encryptRequest(OnboardingEnvelope.request(object))
        } catch {
            throw OnboardingError(
                .networkBadServerResponse, detail: "the configured master server public key is not a P-256 point")
        }
        let body = Array((try? JSONEncoder().encode(request.payload)) ?? Data())
        let encryption =
            "PowerAuth version=\"\(PowerAuthVersion.current)\", application_key=\"\(powerAuth.applicationKey)\""
        let response: HTTPResponse
        do {
            response = try await transport.send(
                JSONPost.request(
                    baseURL: baseURL, path: path, headers: [("X-PowerAuth-Encryption", encryption)], body: body))
        } catch {
            throw OnboardingError(error)
        }
        return try OnboardingEnvelope.decode(
            httpStatus: response.status, body: Self.plaintext(response, decryptor: request.response))
    }

    /// The envelope inside an answer: decrypted when it is an encrypted payload; an
    /// error envelope may come in the clear.
    static func plaintext(
        _ response: HTTPResponse, decryptor: EciesResponseDecryptor
    ) throws(OnboardingError) -> [UInt8] {
        if let payload = try? JSONDecoder().decode(EciesPayload.self, from: Data(response.body)) {
            do {
                return try decryptor.decryptResponse(payload)
            } catch {
                throw OnboardingError(
                    response.status == 200 ? .networkInvalidResponseObject : .networkErrorStatusCode,
                    httpStatus: response.status, detail: "the encrypted answer does not decrypt: \(error)"
                )
            }
        }
        // Only an ERROR envelope may be in the clear; an OK must be encrypted.
        if response.status == 200 && OnboardingEnvelope.status(of: response.body) == "OK" {
            throw OnboardingError(
                .networkInvalidResponseObject, httpStatus: 200, detail: "an OK answer that is not encrypted")
        }
        return response.body
    }
}

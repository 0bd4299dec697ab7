import Foundation
import HTTPTransport
import PowerAuth
import Sandbox
import Storage
import TestSupport
import Testing

@testable import OnboardingCore

/// The identity calls on the wire against the sandbox, which checks what a real server
/// checks: possession signatures over the plaintext, MAC tokens, activation-scope ECIES.
@Suite struct IdentityWireTests {
    /// Sends through libcurl, after `change` had its way with the request.
    struct Tampering: HTTPTransport {
        let inner: CurlTransport
        let change: @Sendable (inout HTTPRequest) -> Void

        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            var request = request
            change(&request)
            return try await inner.send(request)
        }
    }

    /// An onboarded device (VERIFICATION_PENDING) and its verification, with `change`
    /// applied to the identity calls.
    func onboarded(
        _ harness: OnboardingHarness, change: @escaping @Sendable (inout HTTPRequest) -> Void = { _ in }
    ) async throws -> VerificationProcess {
        let process = try await harness.process()
        let id = try await process.start(credentials: Credentials()).processID
        _ = try await process.activate(otp: try #require(harness.server.otp(id)), pin: harness.pin)
        let curl = try CurlTransport(options: CurlTransportOptions(timeoutMilliseconds: 5_000))
        let transport = Tampering(inner: curl, change: change)
        let api = IdentityAPI(
            baseURL: harness.sandbox.baseURL, powerAuth: process.powerAuth,
            transports: Dictionary(uniqueKeysWithValues: IdentityAPI.Timeout.allCases.map { ($0, transport) }))
        return VerificationProcess(
            api: api, onboarding: process.api, powerAuth: process.powerAuth, store: try harness.store())
    }

    static func replacing(_ header: String, _ field: String, in request: inout HTTPRequest, with value: String) {
        guard let index = request.headers.firstIndex(where: { $0.name == header }) else { return }
        let pattern = try! Regex("\(field)=\"[^\"]*\"")
        request.headers[index].value = request.headers[index].value.replacing(pattern, with: "\(field)=\"\(value)\"")
    }

    @Test func aTamperedSignatureOrBodyIsRefused() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let verification = try await onboarded(harness) { request in
                if request.url.hasSuffix("/api/identity/cleanup") {
                    Self.replacing(
                        "X-PowerAuth-Authorization", "pa_signature", in: &request, with: "AAAAAAAAAAAAAAAAAAAAAA==")
                }
                if request.url.hasSuffix("/api/identity/document/init-sdk") {
                    request.body = Array(
                        String(decoding: request.body, as: UTF8.self).replacingOccurrences(
                            of: "\"mac\":\"", with: "\"mac\":\"A"
                        ).utf8)
                }
            }
            #expect(try await verification.status() == .intro)
            #expect(try await verification.approveConsent() == .documentsToScanSelect)
            let encrypted =
                await thrown { _ = try await verification.selectDocumentTypes([.idCard, .passport]) }
                as? OnboardingError
            #expect(encrypted?.httpStatus == 500)
            #expect(encrypted?.serverCode == "ERROR_GENERIC")

            let signed = await thrown { _ = try await verification.restart() } as? OnboardingError
            #expect(signed?.httpStatus == 401)
            #expect(signed?.serverCode == "POWERAUTH_AUTH_FAIL")
            await #expect(
                harness.server.identityPair(try #require(try verification.records.load().lastStatus?.processID))
                    == "DOCUMENT_UPLOAD/IN_PROGRESS")
        }
    }

    @Test func anExpiredTokenIsRefusedAndARefusedTokenIsRecreated() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let verification = try await onboarded(harness)
            #expect(try await verification.status() == .intro)
            let token = try await #require(try verification.powerAuth.activation()?.token)
            #expect(token.factor == .possession)

            // A digest made ten minutes ago is outside the server's window.
            let nonce = Bytes.random(16)
            let timestamp = EciesClock.nowMilliseconds() - 10 * 60 * 1000
            let digest = TokenDigest.compute(tokenSecret: token.secret, nonce: nonce, timestampMilliseconds: timestamp)
            let header =
                "PowerAuth token_id=\"\(token.id)\", token_digest=\"\(Bytes.base64String(digest))\", nonce=\"\(Bytes.base64String(nonce))\", timestamp=\"\(timestamp)\", version=\"3.2\""
            let stale = try await CurlTransport(options: CurlTransportOptions()).send(
                HTTPRequest(
                    method: "POST", url: harness.sandbox.baseURL + "/api/identity/status",
                    headers: [("Content-Type", "application/json"), ("X-PowerAuth-Token", header)],
                    body: Array(#"{"requestObject":{}}"#.utf8)
                ))
            #expect(stale.status == 401)

            // A token the server does not know is refused once, then made anew.
            var forgotten = token
            forgotten.secret = Bytes.random(16)
            try await DeviceActivationStore(records: harness.store()).saveToken(forgotten, instanceID: "default")
            let before = harness.sandbox.requests.count
            #expect(try await verification.status() == .intro)
            let paths = harness.sandbox.requests.dropFirst(before).map(\.path)
            #expect(paths == ["/api/identity/status", "/pa/v3/token/create", "/api/identity/status"])
            await #expect(try verification.powerAuth.activation()?.token?.id != token.id)
        }
    }

    @Test func eachCallCarriesItsAuthentication() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let verification = try await onboarded(harness)
            #expect(try await verification.status() == .intro)
            #expect(try await verification.approveConsent() == .documentsToScanSelect)
            _ = try await verification.selectDocumentTypes([.idCard, .passport])
            // On to the OTP step (the sandbox's steps run at once), where an OTP exists.
            let directory = TemporaryDirectory()
            let files = [(DocumentType.idCard, DocumentSide.front), (.idCard, .back), (.passport, .front)].map {
                type, side in
                let path = directory.file("\(type.rawValue)-\(side.rawValue).jpg")
                _ = FileManager.default.createFile(
                    atPath: path, contents: Data([0xFF, 0xD8, 0xFF, 0xE0, 0x20, 0x20, 0xFF, 0xD9]))
                return DocumentImageFile(type: type, side: side, path: path)
            }
            _ = try await verification.submitDocuments(files, reupload: false)
            #expect(try await verification.status() == .presenceCheck)
            _ = try await verification.presenceCheckInit()
            _ = try await verification.presenceCheckSubmit()
            guard case .otp = try await verification.status() else {
                Issue.record("not at the OTP step")
                return
            }
            let otp = await thrown { _ = try await verification.verifyOTP("12345678") }
            #expect((otp as? VerificationError)?.code == .verificationWrongOTP)

            let expected: [String: (signed: Bool, token: Bool, encrypted: Bool)] = [
                "/api/identity/status": (false, true, false),
                "/api/identity/consent/approve": (true, false, false),
                "/api/identity/init": (true, false, false),
                "/api/identity/document/init-sdk": (true, false, true),
                "/api/identity/otp/verify": (false, false, true),
            ]
            for (path, auth) in expected {
                let request = try #require(harness.sandbox.requests.last { $0.path == path }, "\(path)")
                let signature = request.header("X-PowerAuth-Authorization")
                #expect((signature != nil) == auth.signed, "\(path)")
                #expect(signature == nil || signature!.contains("pa_signature_type=\"possession\""), "\(path)")
                #expect((request.header("X-PowerAuth-Token") != nil) == auth.token, "\(path)")
                // The encryption header goes only with an unsigned encrypted request.
                #expect(
                    (request.header("X-PowerAuth-Encryption") != nil) == (auth.encrypted && !auth.signed), "\(path)")
                let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
                #expect((body["encryptedData"] != nil) == auth.encrypted, "\(path)")
                #expect((body["requestObject"] != nil) == !auth.encrypted, "\(path)")
            }
        }
    }

    @Test(arguments: [
        ("ONBOARDING_FAILED", VerificationErrorState.endstate(.other)),
        ("ONBOARDING_PROCESS_LIMIT_REACHED", .endstate(.limitReached)),
        ("IDENTITY_VERIFICATION_FAILED", .failed),
        ("PRESENCE_CHECK_LIMIT_REACHED", .failed),
        ("IDENTITY_VERIFICATION_LIMIT_REACHED", .failed),
        ("ERROR_GENERIC", .none),
        ("POWERAUTH_AUTH_FAIL", .none),
    ])
    func aServerCodeNamesAState(code: String, state: VerificationErrorState) {
        let error = VerificationError.forServerCode(code, message: "m")
        switch state {
        case .endstate(let reason):
            #expect(error?.code == .verificationEndstate)
            #expect(error?.message.contains("(\(reason.rawValue), \(code): m)") == true)
        case .failed:
            #expect(error?.code == .verificationFailed)
            #expect(error?.nextStep == .restartVerification)
        case .none:
            #expect(error == nil)
        }
    }
}

enum VerificationErrorState: Sendable {
    case endstate(VerificationState.EndstateReason)
    case failed, none
}

/// The error a call threw, if any.
func thrown(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

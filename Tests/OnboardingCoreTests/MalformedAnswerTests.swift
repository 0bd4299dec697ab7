import Foundation
import Sandbox
import TestSupport
import Testing

@testable import OnboardingCore

/// What the client makes of answers the contract does not allow: a clear error with
/// the contract's reason, no crash, and the stored process untouched.
@Suite struct MalformedAnswerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var body: String
        var encrypted: Bool
        var reason: OnboardingError.Reason
        var code: String
        var testDescription: String { name }
    }

    static let statusAnswers: [Case] = [
        Case(
            name: "unknown status value", status: 200,
            body: #"{"status":"OK","responseObject":{"processId":"p","onboardingStatus":"PAUSED"}}"#,
            encrypted: true, reason: .networkBadServerResponse, code: "onboarding.protocol"),
        Case(
            name: "missing onboardingStatus", status: 200, body: #"{"status":"OK","responseObject":{"processId":"p"}}"#,
            encrypted: true, reason: .networkBadServerResponse, code: "onboarding.protocol"),
        Case(
            name: "ERROR envelope with HTTP 200", status: 200,
            body: #"{"status":"ERROR","responseObject":{"code":"ONBOARDING_FAILED","message":"no"}}"#,
            encrypted: false, reason: .networkGeneric, code: "onboarding.protocol"),
        Case(
            name: "encrypted ERROR envelope with HTTP 200", status: 200,
            body: #"{"status":"ERROR","responseObject":{"code":"ERROR_GENERIC"}}"#,
            encrypted: true, reason: .networkGeneric, code: "onboarding.protocol"),
        Case(
            name: "not JSON with HTTP 200", status: 200, body: "<html>maintenance</html>",
            encrypted: false, reason: .networkInvalidResponseObject, code: "onboarding.protocol"),
        Case(
            name: "an OK answer in the clear", status: 200,
            body: #"{"status":"OK","responseObject":{"processId":"p","onboardingStatus":"FAILED"}}"#,
            encrypted: false, reason: .networkInvalidResponseObject, code: "onboarding.protocol"),
        Case(
            name: "responseObject not an object", status: 200, body: #"{"status":"OK","responseObject":[1,2]}"#,
            encrypted: true, reason: .networkInvalidResponseObject, code: "onboarding.protocol"),
        Case(
            name: "not JSON with HTTP 502", status: 502, body: "Bad Gateway",
            encrypted: false, reason: .networkErrorStatusCode, code: "onboarding.serverError"),
        Case(
            name: "not JSON with HTTP 404", status: 404, body: "Not Found",
            encrypted: false, reason: .networkErrorStatusCode, code: "onboarding.protocol"),
        Case(
            name: "ERROR_GENERIC with HTTP 500", status: 500,
            body: #"{"status":"ERROR","responseObject":{"code":"ERROR_GENERIC","message":"boom"}}"#,
            encrypted: false, reason: .networkGeneric, code: "onboarding.serverError"),
        Case(
            name: "INVALID_REQUEST with HTTP 400", status: 400,
            body: #"{"status":"ERROR","responseObject":{"code":"INVALID_REQUEST","message":"bad"}}"#,
            encrypted: false, reason: .networkGeneric, code: "onboarding.protocol"),
    ]

    @Test(arguments: statusAnswers)
    func statusAnswer(_ answer: Case) async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let process = try await harness.process()
            let id = try await process.start(credentials: Credentials()).processID
            harness.server.injectAnswer(
                path: "/api/onboarding/status", status: answer.status, body: answer.body, encrypted: answer.encrypted)
            let error = await onboardingError { _ = try await process.status() }
            #expect(error?.reason == answer.reason)
            #expect(error?.code.rawValue == answer.code)
            #expect(error?.httpStatus == answer.status)
            await #expect(try harness.storedProcessID() == id)
            // The next, ordinary answer is understood again.
            #expect(try await process.status().status == .activationInProgress)
        }
    }

    @Test func aStartAnswerWithoutAProcessIdStoresNothing() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) { () async throws in
            harness.server.injectAnswer(
                path: "/api/onboarding/start",
                body: #"{"status":"OK","responseObject":{"onboardingStatus":"ACTIVATION_IN_PROGRESS"}}"#)
            let error = await onboardingError { _ = try await harness.process().start(credentials: Credentials()) }
            #expect(error?.reason == .networkBadServerResponse)
            await #expect(try harness.storedProcessID() == nil)
        }
    }

    @Test func anAnswerEncryptedForAnotherRequestIsRefused() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let process = try await harness.process()
            _ = try await process.start(credentials: Credentials())
            // A response payload replayed from elsewhere does not pass the MAC.
            let replayed =
                #"{"encryptedData":"AAAAAAAAAAAAAAAAAAAAAA==","mac":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","nonce":"AAAAAAAAAAAAAAAAAAAAAA==","timestamp":1}"#
            harness.server.injectAnswer(path: "/api/onboarding/status", body: replayed, encrypted: false)
            let error = await onboardingError { _ = try await process.status() }
            #expect(error?.reason == .networkInvalidResponseObject)
        }
    }
}

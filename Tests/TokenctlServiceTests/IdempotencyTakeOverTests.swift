import ErrorCodes
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceAPI
import TestSupport
import Testing
import TokenActivation
import WalletModel

@testable import TokenctlService

/// A claim whose request ended without an answer to keep (the database failed it) is not
/// left to its live owner: the claim is ended in the database, and the next retry, in any
/// process, takes it over and runs, once; a claim whose request may still run stays
/// `activation.inProgress`.
@Suite struct IdempotencyTakeOverTests {
    @Test func aClaimWhoseRequestEndedUnansweredIsTakenOverByTheRetry() async throws {
        let fixture = try await APIRouterTests.Fixture.start()
        try await withTeardown({ try await fixture.stop() }) {
            let request = ActivationRequest(deeplink: "mybank://activate?serialNumber=SN1", device: nil, dryRun: false)
            // The first request's claim, committed, as this live process holds it: no attempt, no answer.
            let keys = fixture.service.idempotency
            let claimed = try await keys.claim(key: "stuck-1", request: request, serialNumber: "SN1")
            guard case .claimed(let requestID) = claimed else {
                Issue.record("the key was not claimed: \(claimed)")
                return
            }
            try await fixture.served { client in
                let headers: HTTPFields = [.contentType: "application/json", APIRoutes.idempotencyKey: "stuck-1"]
                let body = ByteBuffer(string: #"{"deeplink": "mybank://activate?serialNumber=SN1"}"#)
                // Its owner lives and may still run it: in progress, nothing sent.
                let waiting = try await client.execute(
                    uri: "/v1/activations", method: .post, headers: headers, body: body)
                #expect(
                    waiting.status == .conflict && String(buffer: waiting.body).contains("activation.inProgress"),
                    "\(String(buffer: waiting.body))")
                #expect(fixture.sandbox.activationRequestCount == 0)
                // Its request ended with the database's failure: the claim is ended (what
                // keyed() writes, or settleClaims() once the database is back), and the retry
                // takes it over and runs.
                #expect(await fixture.service.settle(key: "stuck-1", .end(requestID: requestID)) == nil)
                let retried = try await client.execute(
                    uri: "/v1/activations", method: .post, headers: headers, body: body)
                #expect(
                    retried.status == .ok && String(buffer: retried.body).contains("APPROVED"),
                    "\(String(buffer: retried.body))")
                #expect(fixture.sandbox.activationRequestCount == 1)
                // Answered and stored now: replayed, nothing sent again.
                let replayed = try await client.execute(
                    uri: "/v1/activations", method: .post, headers: headers, body: body)
                #expect(replayed.status == .ok && replayed.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
                #expect(fixture.sandbox.activationRequestCount == 1)
                #expect(!fixture.service.endedUnanswered("stuck-1"))
            }
        }
    }

    @Test func aResultTheDatabaseFailedEndsTheClaimAndAnyOtherIsKept() {
        let requestID = "req-1"
        var lost = ActivationResult.notRun(StorageError(.storageConnectionLost, "the connection broke"))
        lost.requestID = requestID
        let lostAnswer = APIRoutes.answer(lost)
        #expect(APIRoutes.settlement(of: lost, lostAnswer, requestID: requestID) == .end(requestID: requestID))
        for code in [ErrorCode.storageUnreachable, .storageBusy] {
            let failed = ActivationResult.notRun(StorageError(code, "down"))
            #expect(
                APIRoutes.settlement(of: failed, APIRoutes.answer(failed), requestID: requestID)
                    == .end(requestID: requestID))
        }
        let refused = ActivationResult.notRun(StorageError(.storageSchemaTooNew, "newer"))
        let refusedAnswer = APIRoutes.answer(refused)
        #expect(
            APIRoutes.settlement(of: refused, refusedAnswer, requestID: requestID)
                == .answer(status: refusedAnswer.status, body: refusedAnswer.body.text))
    }
}

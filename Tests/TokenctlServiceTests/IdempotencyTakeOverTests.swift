import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceAPI
import TestSupport
import Testing

@testable import TokenctlService

/// A claim whose request ended in this process without its answer stored (the database
/// failed as the answer was written) is not left to its live owner: the next retry takes it
/// over and runs, once; a claim whose request may still run stays `activation.inProgress`.
@Suite struct IdempotencyTakeOverTests {
    @Test func aClaimWhoseRequestEndedUnansweredIsTakenOverByTheRetry() async throws {
        let fixture = try await APIRouterTests.Fixture.start()
        try await withTeardown({ try await fixture.stop() }) {
            let request = ActivationRequest(deeplink: "mybank://activate?serialNumber=SN1", device: nil, dryRun: false)
            // The first request's claim, committed, as this live process holds it: no attempt, no answer.
            let keys = fixture.service.idempotency
            let claimed = try await keys.claim(key: "stuck-1", request: request, serialNumber: "SN1")
            guard case .claimed = claimed else {
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
                // Its request ended here without the answer stored (what store() records when the
                // database refuses the answer): the retry takes the claim over and runs.
                fixture.service.setEndedUnanswered("stuck-1", true)
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
}

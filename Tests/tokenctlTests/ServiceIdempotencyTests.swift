import Foundation
import Sandbox
import TestSupport
import Testing

/// Idempotency-Key (DESIGN §8): the first answer kept in the database, replayed, refused
/// for another deeplink or while the first runs, kept across a restart.
@Suite struct ServiceIdempotencyTests {
    @Test(arguments: Backend.allCases)
    func aRepeatGetsTheStoredAnswerAndSendsNothing(backend: Backend) async throws {
        let service = try await ServiceHarness.start(
            backend: backend, passes: [("SN600001", "DAPL00000000000001"), ("SN600002", "DAPL00000000000002")])
        try await withTeardown({ try await service.shutdown() }) {
            let first = try service.activate("SN600001", headers: ["Idempotency-Key: order-1"])
            #expect(first.status == 200 && first.headers["idempotent-replayed"] == nil)
            let replay = try service.activate("SN600001", headers: ["Idempotency-Key: order-1"])
            #expect(replay.status == 200 && replay.headers["idempotent-replayed"] == "true")
            #expect(try replay.object()["requestId"] as? String == (first.object()["requestId"] as? String))
            #expect(try replay.object()["outcome"] as? String == "APPROVED")
            #expect(service.sandbox.activationRequestCount == 1)
            #expect(try service.activation.auditEntries().count == 1)

            let other = try service.request(
                "POST", "/v1/activations", body: #"{"deeplink": "mybank://activate?serialNumber=SN600002"}"#,
                headers: ["Idempotency-Key: order-1"])
            #expect(other.status == 422)
            #expect(
                try other.object()["code"] as? String == "idempotency.mismatch"
                    && (other.object()["exitCode"] as? Int) == 64)
            #expect(try service.activation.state("SN600002") == ["requiresActivation"])

            // A problem an activation stands behind is stored and replayed as it was.
            let missing = try service.activate("NOPE01", headers: ["Idempotency-Key: order-2"])
            #expect(missing.status == 404)
            let missingAgain = try service.activate("NOPE01", headers: ["Idempotency-Key: order-2"])
            #expect(missingAgain.status == 404 && missingAgain.headers["idempotent-replayed"] == "true")
            #expect(missingAgain.headers["content-type"] == "application/problem+json")
            #expect(missingAgain.body == missing.body)

            // Request-level refusals store nothing: the key stays free.
            let unreadable = try service.request(
                "POST", "/v1/activations", body: "{", headers: ["Idempotency-Key: order-3"])
            #expect(unreadable.status == 400)
            let fresh = try service.activate("SN600002", headers: ["Idempotency-Key: order-3"])
            #expect(fresh.status == 200 && fresh.headers["idempotent-replayed"] == nil)

            // Kept in the database: a restarted service replays it.
            _ = try service.stop()
            let restarted = try ServiceHarness.launch(service.activation)
            defer { _ = try? restarted.stop() }
            let afterRestart = try restarted.activate("SN600001", headers: ["Idempotency-Key: order-1"])
            #expect(afterRestart.status == 200 && afterRestart.headers["idempotent-replayed"] == "true")
            #expect(try afterRestart.object()["requestId"] as? String == (first.object()["requestId"] as? String))
            #expect(restarted.sandbox.activationRequestCount == 2)
        }
    }
}

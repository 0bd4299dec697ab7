import Foundation
import Sandbox
import TestSupport
import Testing

/// The service's connections to its servers, through the real binary: TMP's requests and the
/// user gates' are counted under their own names, and both go through the one transport thread.
@Suite struct ServiceTransportTests {
    @Test func theGatesRequestsAreCountedApartFromTMPs() async throws {
        let device = try await DeviceHarness.start()
        try await withTeardown({ try? await device.shutdown() }) {
            _ = try device.activate()
            let activation = ActivationHarness(cli: device.cli, sandbox: device.sandbox)
            try activation.add("SN1", "DAPL00000000000001")
            try activation.add("SN2", "DAPL00000000000002")
            let service = try ServiceHarness.launch(
                activation, environment: ["TOKENCTL_ONBOARDING_REQUIRE_FINISHED_USER_ACTIVATION": "true"])
            defer { _ = try? service.stop() }
            let before = device.sandbox.requests.count

            for serial in ["SN1", "SN2"] {
                let answer = try service.activate(serial)
                #expect(
                    try answer.status == 200 && answer.object()["outcome"] as? String == "APPROVED", "\(answer.body)")
            }
            // Every request the service sent after it started is either TMP's or a gate's.
            let sent = device.sandbox.requests.dropFirst(before)
            let tmp = sent.filter { $0.path.hasSuffix("/activations") }.count
            let gates = sent.count - tmp
            #expect(tmp == 2 && gates >= 2, "\(sent.map(\.path))")
            let values = ServiceAPITests.samples(try service.request("GET", "/metrics").body)
            #expect(values[#"tokenctl_tmp_requests_total{status_class="2xx"}"#] == 2)
            #expect(values["tokenctl_tmp_request_duration_seconds_count"] == 2)
            #expect(values[#"tokenctl_onboarding_requests_total{result="2xx"}"#] == Double(gates))
            #expect(values[#"tokenctl_onboarding_requests_total{result="none"}"#] == 0)
            #expect(try service.threadNames().filter { $0 == "tokenctl.curl" }.count == 1)
        }
    }

    @Test func theGatesRequestsThatGetNoAnswerAreCountedAsNone() async throws {
        let device = try await DeviceHarness.start()
        try await withTeardown({ try? await device.shutdown() }) {
            _ = try device.activate()
            let activation = ActivationHarness(cli: device.cli, sandbox: device.sandbox)
            try activation.add("SN1", "DAPL00000000000001")
            let service = try ServiceHarness.launch(
                activation,
                environment: [
                    "TOKENCTL_ONBOARDING_REQUIRE_FINISHED_USER_ACTIVATION": "true",
                    "TOKENCTL_ONBOARDING_BASE_URL": "http://127.0.0.1:\(try unusedPort())",
                ])
            defer { _ = try? service.stop() }
            let answer = try service.activate("SN1")
            #expect(
                try answer.status == 502 && answer.object()["code"] as? String == "onboarding.unreachable",
                "\(answer.body)"
            )
            let values = ServiceAPITests.samples(try service.request("GET", "/metrics").body)
            #expect((values[#"tokenctl_onboarding_requests_total{result="none"}"#] ?? 0) >= 1)
            #expect(values[#"tokenctl_tmp_requests_total{status_class="none"}"#] == 0)
            #expect(device.sandbox.activationRequestCount == 0)
        }
    }

    /// `tmp.transport` no longer chooses anything; a configuration naming either former value
    /// still loads and serves.
    @Test(arguments: ["easy", "multi"])
    func theFormerTMPTransportValuesStillServeAndAreCounted(_ transport: String) async throws {
        let passes = (1...24).map { ("SN\(7000 + $0)", "DAPL0000000000\(7000 + $0)") }
        let service = try await ServiceHarness.start(environment: ["TOKENCTL_TMP_TRANSPORT": transport], passes: passes)
        try await withTeardown({ try await service.shutdown() }) {
            let answers = try passes.map { serial, _ in Background { try service.activate(serial) } }.map {
                try $0.join()
            }
            #expect(
                try answers.allSatisfy { try $0.status == 200 && $0.object()["outcome"] as? String == "APPROVED" },
                "\(answers.map(\.body))")
            let values = ServiceAPITests.samples(try service.request("GET", "/metrics").body)
            #expect(values[#"tokenctl_tmp_requests_total{status_class="2xx"}"#] == 24)
            let opened = values["tokenctl_tmp_connections_opened_total"] ?? 0
            #expect(opened >= 1 && opened <= 24, "\(opened)")
            #expect(service.sandbox.activationRequestCount == 24)
            let stopped = try service.stop()
            #expect(stopped.status == 0)
            #expect(stopped.stderr.contains("service.ready"), "\(stopped.stderr)")
        }
    }
}

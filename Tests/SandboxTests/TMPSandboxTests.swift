import Foundation
import Sandbox
import TestSupport
import Testing

/// The sandbox's wire behaviour, checked with a plain socket client (no client code).
@Suite struct TMPSandboxTests {
    func exchange(_ port: Int, _ raw: String) throws -> String {
        try rawHTTP(port, raw)
    }

    func post(_ port: Int, _ body: String) throws -> String {
        try exchange(
            port,
            "POST /issuer/push-provisioning/tokens/activations HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        )
    }

    @Test(arguments: [
        ("DAPL00001234", "200 OK", #""issuerMobileAppAuthResponse": "APPROVED""#),
        ("SBXDECLINED1", "200 OK", #""DECLINED""#),
        ("SBXFAILED1", "200 OK", #""FAILED""#),
        ("SBXERROR5001", "500 Internal Server Error", "INTERNAL_ERROR"),
        ("SBXUNKNOWN1", "200 OK", #""PENDING""#),
        ("SBXLOWERCASE1", "200 OK", #""approved""#),
        ("SBXNOTFOUND1", "404 Not Found", "NOT_FOUND"),
        ("SBXREDIRECT1", "302 Found", "Location: "),
    ])
    func answersByMarker(reference: String, status: String, fragment: String) async throws {
        let sandbox = try await TMPSandbox.start(port: 0)
        try await withTeardown({ try await sandbox.shutdown() }) {
            let answer = try post(sandbox.port, #"{"tokenUniqueReference": "\#(reference)"}"#)
            #expect(answer.hasPrefix("HTTP/1.1 \(status)"), "\(answer)")
            #expect(answer.contains(fragment), "\(answer)")
            #expect(sandbox.activationRequestCount == 1)
        }
    }

    @Test func approvedAnswersCarryTheLastFourDigits() async throws {
        let sandbox = try await TMPSandbox.start(port: 0)
        try await withTeardown({ try await sandbox.shutdown() }) {
            let digits = try post(sandbox.port, #"{"tokenUniqueReference": "DAPL00004321"}"#)
            let letters = try post(sandbox.port, #"{"tokenUniqueReference": "DAPLABCDEFGH"}"#)
            #expect(digits.contains(#""cardLast4Digits": "4321""#))
            #expect(!letters.contains("cardLast4Digits"))
        }
    }

    @Test func droppedAndMalformedAnswers() async throws {
        let sandbox = try await TMPSandbox.start(port: 0)
        try await withTeardown({ try await sandbox.shutdown() }) {
            #expect(try post(sandbox.port, #"{"tokenUniqueReference": "SBXDROP1"}"#).isEmpty)
            let malformed = try post(sandbox.port, #"{"tokenUniqueReference": "SBXMALFORMED1"}"#)
            #expect(malformed.hasSuffix(#"{"issuerMobileAppAuthResponse": "APPR"#))
            #expect(try post(sandbox.port, "not json").hasPrefix("HTTP/1.1 400"))
            #expect(sandbox.activationRequestCount == 3)
        }
    }

    @Test func statsReportTheCountAndOtherPathsAre404() async throws {
        let sandbox = try await TMPSandbox.start(port: 0)
        try await withTeardown({ try await sandbox.shutdown() }) {
            _ = try post(sandbox.port, #"{"tokenUniqueReference": "DAPL1"}"#)
            let stats = try exchange(
                sandbox.port, "GET /_sandbox/stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(stats.hasSuffix(#"{"activationRequests": 1}"#))
            #expect(
                try exchange(sandbox.port, "GET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix(
                    "HTTP/1.1 404"))
        }
    }
}

import Foundation
import Sandbox
import TestSupport
import Testing

/// The sandbox's MIRACL platform on the wire, with raw requests (no client code): the
/// refusals the recording shows a real platform making.
@Suite struct MIRACLPlatformTests {
    let cid = "X-MIRACL-CID: sandbox-client"

    func body(_ answer: String) -> String {
        answer.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    }

    func object(_ answer: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body(answer).utf8)) as? [String: Any]) ?? [:]
    }

    /// An access code from the relying party and the authorize endpoint.
    func accessCode(_ port: Int) throws -> String {
        let start = object(try rawRequest(port, "POST", "/rp/authzurl", body: "{}"))
        let url = try #require(start["authorizeURL"] as? String)
        let target = String(url.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
        let authorized = object(try rawRequest(port, "POST", target, body: "{}", headers: [cid]))
        let qr = try #require(authorized["qrURL"] as? String)
        return String(qr.split(separator: "#").last ?? "")
    }

    @Test func discoveryNeedsTheClientIDAndAnswersTextPlainWithEscapedAmpersands() async throws {
        let sandbox = try await TMPSandbox.start(port: 0)
        try await withTeardown({ try await sandbox.shutdown() }) {
            #expect(try rawRequest(sandbox.port, "GET", "/rps/clientSettings").hasPrefix("HTTP/1.1 406"))
            let answer = try rawRequest(sandbox.port, "GET", "/rps/clientSettings", headers: [cid])
            #expect(answer.hasPrefix("HTTP/1.1 200"))
            #expect(answer.lowercased().contains("content-type: text/plain; charset=utf-8"))
            let settings = object(answer)
            for key in [
                "registerURL", "signatureURL", "certivoxURL", "mpinAuthServerURL", "mobileAuthenticateURL",
                "codeStatusURL",
            ] {
                #expect((settings[key] as? String)?.hasPrefix("http://127.0.0.1:\(sandbox.port)") == true, "\(key)")
            }
            #expect(settings["usePermits"] as? Bool == false)

            let code = try accessCode(sandbox.port)
            let registered = try rawRequest(
                sandbox.port, "PUT", "/rps/user",
                body: #"{"userId":"a@example.com","mobile":1,"deviceName":"d","wid":"\#(code)"}"#, headers: [cid])
            let mpinID = try #require(object(registered)["mpinId"] as? String)
            let regOTT = try #require(object(registered)["regOTT"] as? String)
            #expect(sandbox.miracl.confirmEmail(userID: "a@example.com"))
            let signature = try rawRequest(
                sandbox.port, "GET", "/rps/signature/\(mpinID)?regOTT=\(regOTT)", headers: [cid])
            #expect(body(signature).contains(#"\u0026"#))
            #expect(!body(signature).contains("&"))
        }
    }

    @Test func registrationNeedsAnAccessCodeAndAUserID() async throws {
        let sandbox = try await TMPSandbox.start(port: 0)
        try await withTeardown({ try await sandbox.shutdown() }) {
            let noCode = try rawRequest(
                sandbox.port, "PUT", "/rps/user", body: #"{"userId":"a@example.com","mobile":1}"#, headers: [cid])
            #expect(noCode.hasPrefix("HTTP/1.1 400"))
            #expect(body(noCode) == "Invalid access id")
            let code = try accessCode(sandbox.port)
            let noUser = try rawRequest(
                sandbox.port, "PUT", "/rps/user", body: #"{"userId":"","mobile":1,"wid":"\#(code)"}"#, headers: [cid])
            #expect(noUser.hasPrefix("HTTP/1.1 400"))
            #expect(body(noUser) == "UserId required")
        }
    }

    @Test func theSecondDTARefusesParamsTheFirstDidNotSign() async throws {
        let sandbox = try await TMPSandbox.start(port: 0)
        try await withTeardown({ try await sandbox.shutdown() }) {
            let code = try accessCode(sandbox.port)
            let registered = object(
                try rawRequest(
                    sandbox.port, "PUT", "/rps/user", body: #"{"userId":"a@example.com","mobile":1,"wid":"\#(code)"}"#,
                    headers: [cid]))
            let mpinID = try #require(registered["mpinId"] as? String)
            let regOTT = try #require(registered["regOTT"] as? String)
            #expect(
                try rawRequest(sandbox.port, "GET", "/rps/signature/\(mpinID)?regOTT=\(regOTT)", headers: [cid])
                    .hasPrefix(
                        "HTTP/1.1 401"))
            #expect(sandbox.miracl.confirmEmail(userID: "a@example.com"))
            let first = object(
                try rawRequest(sandbox.port, "GET", "/rps/signature/\(mpinID)?regOTT=\(regOTT)", headers: [cid]))
            let params = try #require(first["params"] as? String)
            #expect(
                try rawRequest(sandbox.port, "GET", "/dta2/clientSecret?\(params)", headers: [cid]).hasPrefix(
                    "HTTP/1.1 200"))
            let tampered = params.replacingOccurrences(of: "hash_user_id=", with: "hash_user_id=0")
            #expect(
                try rawRequest(sandbox.port, "GET", "/dta2/clientSecret?\(tampered)", headers: [cid]).hasPrefix(
                    "HTTP/1.1 401"))
        }
    }

    @Test func passOneRefusesAPointOffTheCurveAndAnUnknownIdentity() async throws {
        let sandbox = try await TMPSandbox.start(port: 0)
        try await withTeardown({ try await sandbox.shutdown() }) {
            let offCurve = "04" + String(repeating: "0", count: 63) + "1" + String(repeating: "0", count: 63) + "1"
            #expect(
                try rawRequest(
                    sandbox.port, "POST", "/rps/pass1",
                    body: #"{"pass":1,"mpin_id":"7b7d","UT":"","U":"\#(offCurve)"}"#,
                    headers: [cid]
                ).hasPrefix("HTTP/1.1 400"))
            let unknownAuthOTT = try rawRequest(
                sandbox.port, "POST", "/rps/authenticate",
                body: #"{"mpinResponse":{"authOTT":"00"},"authzRequest":true}"#,
                headers: [cid])
            #expect(unknownAuthOTT.hasPrefix("HTTP/1.1 412"))
            #expect(body(unknownAuthOTT) == "Invalid or expired authOTT")
        }
    }
}

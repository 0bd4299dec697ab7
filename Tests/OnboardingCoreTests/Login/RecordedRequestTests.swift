import Foundation
import HTTPTransport
import TestSupport
import Testing

@testable import OnboardingCore

/// Every request the client builds, compared field by field with the request of the same step
/// in the recording of the MIRACL MFA SDK core talking to a real MIRACL server. Random values
/// (U, V) are compared by shape; `authzRequest` is true here because this client wants an
/// authorization code (the recorded SDK test asked for none).
@Suite struct RecordedRequestTests {
    let recording: MPinRecording

    init() throws {
        recording = try MPinRecording.load()
    }

    /// A discovery pointing at the recorded server, from the recorded clientSettings answer.
    var discovery: Discovery {
        let settings = recording[1].responseJSON
        return Discovery(
            registerURL: settings["registerURL"] as! String, signatureURL: settings["signatureURL"] as! String,
            certivoxURL: settings["certivoxURL"] as! String,
            mpinAuthServerURL: settings["mpinAuthServerURL"] as! String,
            mobileAuthenticateURL: settings["mobileAuthenticateURL"] as! String,
            codeStatusURL: settings["codeStatusURL"] as! String
        )
    }

    func body(_ request: HTTPRequest) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
    }

    /// Same keys, and equal values except where `random` names a key whose value is only
    /// checked to be a string of the same length.
    func expectSameFields(
        _ ours: [String: Any], _ recorded: [String: Any], random: Set<String> = [], extra: Set<String> = [],
        differing: Set<String> = []
    ) {
        #expect(Set(ours.keys).subtracting(extra) == Set(recorded.keys), "fields differ")
        for (key, value) in recorded where !differing.contains(key) {
            if random.contains(key) {
                #expect((ours[key] as? String)?.count == (value as? String)?.count, "\(key)")
            } else {
                #expect(canonical(ours[key]) == canonical(value), "\(key)")
            }
        }
    }

    /// A value as sorted JSON text, so numbers, booleans and nested objects compare exactly.
    func canonical(_ value: Any?) -> String {
        guard let value, let data = try? JSONSerialization.data(withJSONObject: ["v": value], options: [.sortedKeys])
        else { return "nil" }
        return String(decoding: data, as: UTF8.self)
    }

    @Test func everyStepMatchesTheRecording() throws {
        var checked = 0
        func step(_ index: Int, _ ours: HTTPRequest, urlMustMatch: Bool = true) {
            #expect(ours.method == recording[index].request.method, "method of \(index)")
            if urlMustMatch { #expect(ours.url == recording[index].request.url, "url of \(index)") }
            #expect(ours.headers.contains { $0.name == "X-MIRACL-CID" } || ours.url.contains("/authzurl"))
            checked += 1
        }
        let client = "nfoztuxb5dpn4"

        let settings = MIRACLRequests.clientSettings(backendURL: "https://api.dev.miracl.net/", clientID: client)
        step(1, settings)
        #expect(settings.body.isEmpty)

        let registerRecorded = recording[24].requestJSON
        let register = MIRACLRequests.register(
            discovery: discovery, clientID: client, userID: "testUser1@example.com", deviceName: "d",
            accessCode: registerRecorded["wid"] as! String)
        step(24, register)
        expectSameFields(try body(register), registerRecorded, extra: ["deviceName"])

        let resendRecorded = recording[28].requestJSON
        let mpinID2 = recording[27].responseJSON["mpinId"] as! String
        let resend = MIRACLRequests.register(
            discovery: discovery, clientID: client, userID: "testUser2@example.com", deviceName: "d",
            accessCode: resendRecorded["wid"] as! String, resend: (mpinID2, resendRecorded["regOTT"] as! String))
        step(28, resend)
        expectSameFields(try body(resend), resendRecorded, extra: ["deviceName"])

        let mpinID = recording[24].responseJSON["mpinId"] as! String
        let regOTT = recording[24].responseJSON["regOTT"] as! String
        step(25, MIRACLRequests.signature(discovery: discovery, clientID: client, mpinID: mpinID, regOTT: regOTT))

        let params = recording[25].responseJSON["params"] as! String
        step(26, MIRACLRequests.clientSecret(discovery: discovery, clientID: client, params: params))

        let codeStatusRecorded = recording[38].requestJSON
        let codeStatus = MIRACLRequests.codeStatus(
            discovery: discovery, clientID: client, accessCode: codeStatusRecorded["wid"] as! String,
            userID: "testUser1@example.com")
        step(38, codeStatus)
        expectSameFields(try body(codeStatus), codeStatusRecorded)

        let pass1Recorded = recording[39].requestJSON
        let pass1 = MIRACLRequests.pass1(
            discovery: discovery, clientID: client, mpinID: mpinID, u: String(repeating: "0", count: 130))
        step(39, pass1)
        expectSameFields(try body(pass1), pass1Recorded, random: ["U"])

        let pass2Recorded = recording[40].requestJSON
        let pass2 = MIRACLRequests.pass2(
            discovery: discovery, clientID: client, mpinID: mpinID, accessCode: pass2Recorded["WID"] as! String,
            v: String(repeating: "0", count: 130))
        step(40, pass2)
        expectSameFields(try body(pass2), pass2Recorded, random: ["V"])
        #expect(String(decoding: pass2.body, as: UTF8.self).contains(#""OTP":false"#))
        #expect(String(decoding: pass2.body, as: UTF8.self).contains(#""pass":2"#))
        #expect(String(decoding: register.body, as: UTF8.self).contains(#""mobile":1"#))

        let authenticateRecorded = recording[41].requestJSON
        let authOTT = (authenticateRecorded["mpinResponse"] as! [String: Any])["authOTT"] as! String
        let authenticate = MIRACLRequests.authenticate(discovery: discovery, clientID: client, authOTT: authOTT)
        step(41, authenticate)
        expectSameFields(try body(authenticate), authenticateRecorded, differing: ["authzRequest"])
        #expect(try body(authenticate)["authzRequest"] as? Bool == true)

        let authorize = MIRACLRequests.authorize(url: recording[3].request.url, clientID: client)
        step(3, authorize)
        #expect(try body(authorize).isEmpty)

        #expect(checked == 10)
        print("recorded requests: \(checked) steps compared field by field")
    }

    /// The platform answers `text/plain` with `&` escaped: the client reads it as JSON.
    @Test func aTextPlainAnswerWithEscapedAmpersandsIsReadAsJSON() async throws {
        let recorded = recording[25].response.data!.replacingOccurrences(of: "&", with: "\\u0026")
        let transport = ClosureTransport(status: 200, json: recorded)
        let client = MIRACLClient(
            settings: LoginSettings(
                connection: .init(baseURL: "http://127.0.0.1:1", connectTimeoutMilliseconds: 1, timeoutMilliseconds: 1),
                clientID: "c", relyingPartyURL: "http://127.0.0.1:1"), transport: transport)
        let answer = try await client.send(
            MIRACLRequests.signature(discovery: discovery, clientID: "c", mpinID: "00", regOTT: "x"))
        #expect(answer.string("params") == recording[25].responseJSON["params"] as? String)
    }
}

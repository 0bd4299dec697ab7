import Foundation
import HTTPTransport

/// The requests of the M-Pin wire as the MIRACL MFA SDK core sends them: field names, types and
/// methods from the recorded exchanges. Pure: each returns the request to send.
public enum MIRACLRequests {
    /// `GET {backend}/rps/clientSettings`.
    public static func clientSettings(backendURL: String, clientID: String) -> HTTPRequest {
        request("GET", trimmed(backendURL) + "/rps/clientSettings", clientID: clientID, body: nil)
    }

    /// The relying party's `POST /authzurl`, which starts an OIDC authorization.
    public static func authorizeURL(relyingPartyURL: String) -> HTTPRequest {
        request("POST", trimmed(relyingPartyURL) + "/authzurl", clientID: nil, body: [:])
    }

    /// `POST authorizeURL` with `{}`: the answer's `qrURL` carries the access code after `#`.
    public static func authorize(url: String, clientID: String) -> HTTPRequest {
        request("POST", url, clientID: clientID, body: [:])
    }

    /// `PUT registerURL` to start, `PUT registerURL/<mpinId>` with the current regOTT to resend.
    public static func register(
        discovery: Discovery, clientID: String, userID: String, deviceName: String, accessCode: String,
        resend: (mpinID: String, regOTT: String)? = nil
    ) -> HTTPRequest {
        var body: [String: Any] = ["userId": userID, "mobile": 1, "deviceName": deviceName, "wid": accessCode]
        var url = discovery.registerURL
        if let resend {
            body["regOTT"] = resend.regOTT
            url += "/" + resend.mpinID
        }
        return request("PUT", url, clientID: clientID, body: body)
    }

    /// `GET signatureURL/<mpinId>?regOTT=…`: the first share.
    public static func signature(discovery: Discovery, clientID: String, mpinID: String, regOTT: String) -> HTTPRequest
    {
        request("GET", "\(discovery.signatureURL)/\(mpinID)?regOTT=\(regOTT)", clientID: clientID, body: nil)
    }

    /// `GET {certivoxURL}clientSecret?{params}`: the second share; `params` passes unchanged.
    public static func clientSecret(discovery: Discovery, clientID: String, params: String) -> HTTPRequest {
        request("GET", "\(discovery.certivoxURL)clientSecret?\(params)", clientID: clientID, body: nil)
    }

    public static func codeStatus(
        discovery: Discovery, clientID: String, accessCode: String, userID: String
    ) -> HTTPRequest {
        request(
            "POST", discovery.codeStatusURL, clientID: clientID,
            body: ["status": "user", "wid": accessCode, "userId": userID])
    }

    public static func pass1(discovery: Discovery, clientID: String, mpinID: String, u: String) -> HTTPRequest {
        request(
            "POST", trimmed(discovery.mpinAuthServerURL) + "/pass1", clientID: clientID,
            body: ["pass": 1, "mpin_id": mpinID, "UT": "", "U": u])
    }

    public static func pass2(
        discovery: Discovery, clientID: String, mpinID: String, accessCode: String, v: String
    ) -> HTTPRequest {
        request(
            "POST", trimmed(discovery.mpinAuthServerURL) + "/pass2", clientID: clientID,
            body: ["pass": 2, "OTP": false, "WID": accessCode, "V": v, "mpin_id": mpinID])
    }

    public static func authenticate(discovery: Discovery, clientID: String, authOTT: String) -> HTTPRequest {
        request(
            "POST", discovery.mobileAuthenticateURL, clientID: clientID,
            body: ["mpinResponse": ["authOTT": authOTT], "authzRequest": true])
    }

    /// The relying party's `POST /authtoken`: it redeems the code and checks the id_token.
    public static func authToken(relyingPartyURL: String, code: String, userID: String) -> HTTPRequest {
        request("POST", trimmed(relyingPartyURL) + "/authtoken", clientID: nil, body: ["code": code, "userID": userID])
    }

    static func request(_ method: String, _ url: String, clientID: String?, body: [String: Any]?) -> HTTPRequest {
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if let clientID { headers.append(("X-MIRACL-CID", clientID)) }
        var bytes: [UInt8] = []
        if let body {
            headers.append(("Content-Type", "application/json"))
            bytes = Array(
                (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8))
        }
        return HTTPRequest(method: method, url: url, headers: headers, body: bytes)
    }

    static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}

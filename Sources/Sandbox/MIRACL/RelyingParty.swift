import Foundation
import Synchronization

/// The relying party of the login (the issuer's back end, in the sandbox): it starts an
/// OIDC authorization at the platform (`POST /rp/authzurl`) and logs the user in with the
/// authorization code the app got (`POST /rp/authtoken`): it redeems the code at the token
/// endpoint with its client credentials and accepts the id_token only when its signature,
/// `iss`, `aud`, `exp` and `nonce` hold and `sub` is the user.
public final class RelyingParty: Sendable {
    let platform: MIRACLPlatform
    let issuedNonces = Mutex<Set<String>>([])
    let redirectURI = "http://127.0.0.1/rp/callback"

    init(platform: MIRACLPlatform) {
        self.platform = platform
    }

    /// Answers `/rp/…`; nil for any other path.
    func handle(_ request: RecordedRequest) -> SandboxReply? {
        let base = "http://" + (request.header("Host") ?? "127.0.0.1")
        switch (request.method, request.path) {
        case ("POST", "/rp/authzurl"): return authorizeURL(base: base)
        case ("POST", "/rp/authtoken"): return logIn(request, base: base)
        default: return nil
        }
    }

    func authorizeURL(base: String) -> SandboxReply {
        let nonce = MIRACLPlatform.randomHex(16)
        issuedNonces.withLock { _ = $0.insert(nonce) }
        let query = [
            ("client_id", platform.options.clientID), ("redirect_uri", redirectURI), ("response_type", "code"),
            ("scope", "openid email"), ("state", MIRACLPlatform.randomHex(16)), ("nonce", nonce),
        ].map { "\($0)=\(MIRACLPlatform.percentEncoded($1))" }.joined(separator: "&")
        return Self.json(200, ["authorizeURL": "\(base)/authorize?\(query)"])
    }

    func logIn(_ request: RecordedRequest, base: String) -> SandboxReply {
        guard let body = MIRACLPlatform.object(request.body), let code = body["code"] as? String, !code.isEmpty,
            let userID = body["userID"] as? String
        else { return Self.json(400, ["status": "ERROR", "message": "code and userID are required"]) }
        let form = [
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI,
            "client_id": platform.options.clientID, "client_secret": platform.options.clientSecret,
        ]
        guard let idToken = platform.token(form: form, base: base).idToken else {
            return Self.json(401, ["status": "ERROR", "message": "the authorization code was refused"])
        }
        guard let claims = IDToken.verifiedClaims(idToken, key: platform.idTokenKey) else {
            return Self.json(401, ["status": "ERROR", "message": "the id_token signature does not verify"])
        }
        let now = Int(platform.options.clock().timeIntervalSince1970)
        let nonce = claims["nonce"] as? String ?? ""
        let problem: String? =
            if claims["iss"] as? String != base { "iss" } else if claims["aud"] as? String != platform.options.clientID
            { "aud" } else if (claims["exp"] as? Int ?? 0) <= now {
                "exp"
            } else if !issuedNonces.withLock({ $0.remove(nonce) != nil }) {
                "nonce"
            } else if claims["sub"] as? String != userID { "sub" } else { nil }
        if let problem {
            return Self.json(401, ["status": "ERROR", "message": "the id_token's \(problem) does not hold"])
        }
        return Self.json(200, ["status": "OK", "userID": userID, "loggedInAt": now])
    }

    static func json(_ status: Int, _ object: [String: Any]) -> SandboxReply {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return .respond(
            status: status, headers: [("Content-Type", "application/json")], body: String(decoding: data, as: UTF8.self)
        )
    }
}

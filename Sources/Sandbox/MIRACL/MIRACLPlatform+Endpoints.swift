import Crypto
import Foundation
import HexCoding
import MPin

extension MIRACLPlatform {
    /// Answers the platform's paths; nil for any other.
    func handle(_ request: RecordedRequest) -> SandboxReply? {
        let base = "http://" + (request.header("Host") ?? "127.0.0.1")
        switch (request.method, request.path) {
        case ("GET", "/rps/clientSettings"): return clientSettings(request, base: base)
        case ("POST", "/authorize"): return authorize(request, base: base)
        case ("PUT", "/rps/user"): return register(request, mpinID: nil, base: base)
        case ("PUT", let path) where path.hasPrefix("/rps/user/"):
            return register(request, mpinID: String(path.dropFirst("/rps/user/".count)), base: base)
        case ("GET", let path) where path.hasPrefix("/rps/signature/"):
            return signature(request, mpinID: String(path.dropFirst("/rps/signature/".count)))
        case ("GET", "/dta2/clientSecret"): return secondShare(request)
        case ("POST", "/rps/codeStatus"): return codeStatus(request)
        case ("POST", "/rps/pass1"): return passOne(request)
        case ("POST", "/rps/pass2"): return passTwo(request)
        case ("POST", "/rps/authenticate"): return authenticate(request)
        case ("POST", "/oidc/token"):
            return token(form: Self.form(String(decoding: request.body, as: UTF8.self)), base: base).reply
        case ("GET", "/_sandbox/mpin/email"): return email(request, base: base)
        case ("GET", "/_sandbox/mpin/confirm"): return confirm(request)
        default: return nil
        }
    }

    // MARK: Discovery and access codes

    func clientSettings(_ request: RecordedRequest, base: String) -> SandboxReply {
        guard request.header("X-MIRACL-CID") == options.clientID else {
            return Self.text(406, "Cannot parse application for User-Agent")
        }
        return Self.json(
            200,
            [
                "registerURL": "\(base)/rps/user", "signatureURL": "\(base)/rps/signature",
                "certivoxURL": "\(base)/dta2/", "dta2URL": "\(base)/dta2/",
                "mpinAuthServerURL": "\(base)/rps", "mobileAuthenticateURL": "\(base)/rps/authenticate",
                "authenticateURL": "\(base)/rps/authenticate", "codeStatusURL": "\(base)/rps/codeStatus",
                "usePermits": false, "appID": appID, "cSum": 0, "accessNumberDigits": 0,
                "accessNumberUseCheckSum": false, "requestOTP": false, "setDeviceName": false,
            ])
    }

    func authorize(_ request: RecordedRequest, base: String) -> SandboxReply {
        let query = Self.form(request.query)
        guard query["client_id"] == options.clientID, query["response_type"] == "code",
            let redirect = query["redirect_uri"], let nonce = query["nonce"]
        else { return Self.text(400, "Invalid authorization request") }
        let code = Self.randomHex(16)
        let now = options.clock()
        state.withLock {
            $0.accessSessions[code] = AccessSession(
                clientID: options.clientID, redirectURI: redirect, nonce: nonce, created: now)
        }
        return Self.json(
            200,
            ["webOTT": Self.randomHex(32), "qrURL": "\(base)/mobile/login#\(code)", "accessURL": "\(base)/rps/access"])
    }

    // MARK: Registration

    func register(_ request: RecordedRequest, mpinID existing: String?, base: String) -> SandboxReply {
        guard let body = Self.object(request.body) else { return Self.text(400, "Invalid request") }
        let userID = body["userId"] as? String ?? ""
        let wid = body["wid"] as? String ?? ""
        let now = options.clock()
        let validAccess = state.withLock { state in
            state.accessSessions[wid].map { now.timeIntervalSince($0.created) < Self.accessCodeLifetime } ?? false
        }
        guard validAccess else { return Self.text(400, "Invalid access id") }
        guard !userID.isEmpty else { return Self.text(400, "UserId required") }
        let reply: MIRACLIdentity? = state.withLock { state in
            if let existing {
                guard var identity = state.identities[existing], identity.userID == userID,
                    identity.regOTT == body["regOTT"] as? String
                else { return nil }
                identity.regOTT = Self.randomHex(16)
                identity.linkToken = Self.randomHex(16)
                identity.expires = now.addingTimeInterval(Self.registrationLifetime)
                state.identities[existing] = identity
                return identity
            }
            let document: [String: Any] = [
                "issuedAt": Int(now.timeIntervalSince1970), "userID": userID, "cID": appID,
                "mobile": 1, "salt": Self.randomHex(16), "v": 1,
            ]
            let documentBytes =
                (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])) ?? Data()
            let mpinID = Hex.encode(documentBytes)
            let identity = MIRACLIdentity(
                mpinID: mpinID, userID: userID, hashed: G1Point.hashToCurve(Array(documentBytes)).point,
                regOTT: Self.randomHex(16), expires: now.addingTimeInterval(Self.registrationLifetime),
                linkToken: Self.randomHex(16)
            )
            state.identities[mpinID] = identity
            return identity
        }
        guard let identity = reply else { return Self.text(403, "Invalid regOTT") }
        log?("mpin: confirmation e-mail to \(userID): \(base)/_sandbox/mpin/confirm?t=\(identity.linkToken)")
        return Self.json(
            200,
            [
                "mpinId": identity.mpinID, "regOTT": identity.regOTT,
                "expireTime": Int(identity.expires.timeIntervalSince1970),
                "nowTime": Int(now.timeIntervalSince1970), "customerId": appID, "appId": "", "active": false,
            ])
    }

    func signature(_ request: RecordedRequest, mpinID: String) -> SandboxReply {
        let regOTT = Self.form(request.query)["regOTT"]
        let now = options.clock()
        guard let identity = state.withLock({ $0.identities[mpinID] }), identity.regOTT == regOTT,
            now < identity.expires
        else {
            return Self.text(403, "Invalid or expired regOTT")
        }
        guard identity.active else { return Self.text(401, "M-PinID not active") }
        let expires = Self.timestamp(now.addingTimeInterval(Self.paramsLifetime))
        let unsigned =
            "app_id=\(appID)&expires=\(Self.percentEncoded(expires))&hash_mpin_id=\(Self.sha256Hex(Hex.decode(mpinID) ?? []))&hash_user_id=\(Self.sha256Hex(Data(identity.userID.utf8)))"
        let params =
            unsigned + "&signature="
            + Hex.encode(HMAC<SHA256>.authenticationCode(for: Data(unsigned.utf8), using: paramsKey))
        guard let share = (share1 * identity.hashed).hex else { return Self.text(500, "share") }
        return Self.json(200, ["params": params, "clientSecretShare": share])
    }

    /// The second D-TA: checks the first D-TA's signature on `params` and hands out its share.
    func secondShare(_ request: RecordedRequest) -> SandboxReply {
        guard let range = request.query.range(of: "&signature=") else { return Self.text(401, "Invalid signature") }
        let unsigned = String(request.query[..<range.lowerBound])
        let signature = Hex.decode(String(request.query[range.upperBound...])) ?? []
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(unsigned.utf8), using: paramsKey)
        else {
            return Self.text(401, "Invalid signature")
        }
        let params = Self.form(unsigned)
        guard let expires = params["expires"].flatMap(Self.date), options.clock() < expires else {
            return Self.text(401, "Expired params")
        }
        let hash = params["hash_mpin_id"]
        let identity: MIRACLIdentity? = state.withLock { state in
            guard
                let id = state.identities.values.first(where: { Self.sha256Hex(Hex.decode($0.mpinID) ?? []) == hash })?
                    .mpinID
            else { return nil }
            state.identities[id]?.secretIssued = true
            return state.identities[id]
        }
        guard let identity, let share = (share2 * identity.hashed).hex else {
            return Self.text(404, "Unknown identity")
        }
        return Self.json(
            200,
            [
                "clientSecret": share, "createdAt": Int(options.clock().timeIntervalSince1970), "message": "OK",
                "version": "sandbox",
            ])
    }

    // MARK: The e-mail (sandbox only)

    func email(_ request: RecordedRequest, base: String) -> SandboxReply {
        guard let userID = Self.form(request.query)["userId"],
            let link = confirmationLink(userID: userID, baseURL: base)
        else {
            return Self.text(404, "No e-mail for this user")
        }
        return Self.json(200, ["userId": userID, "link": link])
    }

    func confirm(_ request: RecordedRequest) -> SandboxReply {
        let token = Self.form(request.query)["t"]
        let confirmed = state.withLock { state in
            guard let id = state.identities.values.first(where: { $0.linkToken == token })?.mpinID else { return false }
            state.identities[id]?.active = true
            return true
        }
        return confirmed
            ? Self.text(200, "Your identity is confirmed. Go back to the app.")
            : Self.text(404, "Unknown or replaced link")
    }
}

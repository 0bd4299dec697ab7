import Crypto
import Foundation
import HexCoding
import MPin

extension MIRACLPlatform {
    func codeStatus(_ request: RecordedRequest) -> SandboxReply {
        guard let body = Self.object(request.body), let status = body["status"] as? String,
            let wid = body["wid"] as? String
        else {
            return Self.text(400, "Invalid request")
        }
        if status == "user", let userID = body["userId"] as? String {
            state.withLock { state in
                if state.accessSessions[wid]?.used == false { state.accessSessions[wid]?.userID = userID }
            }
        }
        return Self.json(200, ["status": "OK", "message": ""])
    }

    func passOne(_ request: RecordedRequest) -> SandboxReply {
        guard let body = Self.object(request.body), body["pass"] as? Int == 1,
            let mpinID = body["mpin_id"] as? String, let uHex = body["U"] as? String
        else { return Self.text(400, "Invalid request") }
        guard let u = try? G1Point(hex: uHex) else { return Self.text(400, "Invalid U") }
        let y = Scalar.random()
        let known: Bool? = state.withLock { state in
            guard let identity = state.identities[mpinID], identity.secretIssued else { return nil }
            guard !identity.blocked else { return false }
            state.passOnes[mpinID] = PassOne(u: u, y: y)
            return true
        }
        switch known {
        case nil: return Self.text(403, "Unknown M-Pin ID")
        case false?:
            return Self.json(410, ["status": 410, "message": "Authentication Failed. Identity blocked.", "code": ""])
        case true?: return Self.json(200, ["y": Hex.encode(y.bigEndianBytes), "message": "OK", "pass": 1])
        }
    }

    func passTwo(_ request: RecordedRequest) -> SandboxReply {
        guard let body = Self.object(request.body), body["pass"] as? Int == 2,
            let mpinID = body["mpin_id"] as? String, let vHex = body["V"] as? String
        else { return Self.text(400, "Invalid request") }
        let wid = body["WID"] as? String ?? ""
        let v = try? G1Point(hex: vHex)
        let authOTT = Self.randomHex(16)
        state.withLock { state in
            guard let identity = state.identities[mpinID], let first = state.passOnes.removeValue(forKey: mpinID) else {
                return
            }
            // V + s·(U + y·H(ID)) = O, with s = s1 + s2.
            let accepted =
                v.map { $0 + (share1 + share2) * (first.u + first.y * identity.hashed) == .infinity } ?? false
            state.tickets[authOTT] = AuthTicket(mpinID: mpinID, wid: wid, accepted: accepted)
        }
        // Always 200: the verdict comes from `authenticate`.
        return Self.json(200, ["authOTT": authOTT, "pass": 2])
    }

    func authenticate(_ request: RecordedRequest) -> SandboxReply {
        guard let body = Self.object(request.body), let response = body["mpinResponse"] as? [String: Any],
            let authOTT = response["authOTT"] as? String
        else { return Self.text(400, "Invalid request") }
        let wantsCode = body["authzRequest"] as? Bool ?? false
        let now = options.clock()
        enum Verdict {
            case invalid, blocked, failed
            case accepted(String)
        }
        let verdict: Verdict = state.withLock { state in
            guard let ticket = state.tickets.removeValue(forKey: authOTT),
                var access = state.accessSessions[ticket.wid], !access.used,
                now.timeIntervalSince(access.created) < Self.accessCodeLifetime,
                var identity = state.identities[ticket.mpinID]
            else { return .invalid }
            if identity.blocked { return .blocked }
            guard ticket.accepted, access.userID == nil || access.userID == identity.userID else {
                identity.failures += 1
                identity.blocked = identity.failures >= options.failuresBeforeBlock
                state.identities[ticket.mpinID] = identity
                return identity.blocked ? .blocked : .failed
            }
            identity.failures = 0
            state.identities[ticket.mpinID] = identity
            access.used = true
            state.accessSessions[ticket.wid] = access
            guard wantsCode else { return .accepted("") }
            let code = Self.randomHex(16)
            state.codes[code] = AuthorizationCode(
                clientID: access.clientID, userID: identity.userID, nonce: access.nonce, created: now)
            return .accepted(code)
        }
        switch verdict {
        case .invalid: return Self.text(412, "Invalid or expired authOTT")
        case .blocked:
            return Self.json(410, ["status": 410, "message": "Authentication Failed. Invalid Token.", "code": ""])
        case .failed:
            return Self.json(401, ["status": 401, "message": "Authentication Failed. Invalid Token.", "code": ""])
        case .accepted(let code): return Self.json(200, ["status": 200, "message": "OK", "code": code])
        }
    }

    // MARK: OIDC token endpoint

    /// Redeems an authorization code for an id_token (`grant_type=authorization_code`, client
    /// credentials in the form).
    func token(form: [String: String], base: String) -> (reply: SandboxReply, idToken: String?) {
        guard form["grant_type"] == "authorization_code", form["client_id"] == options.clientID,
            form["client_secret"] == options.clientSecret
        else { return (Self.json(401, ["error": "invalid_client"]), nil) }
        let now = options.clock()
        let (code, defect) = state.withLock { state in
            (form["code"].flatMap { state.codes.removeValue(forKey: $0) }, state.nextDefect.take())
        }
        guard let code, now.timeIntervalSince(code.created) < 60 else {
            return (Self.json(400, ["error": "invalid_grant"]), nil)
        }
        var claims: [String: Any] = [
            "iss": base, "aud": code.clientID, "sub": code.userID, "email": code.userID, "nonce": code.nonce,
            "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 300,
        ]
        switch defect {
        case .expired?: claims["exp"] = Int(now.timeIntervalSince1970) - 60
        case .wrongAudience?: claims["aud"] = "another-client"
        case .unknownNonce?: claims["nonce"] = Self.randomHex(8)
        case .forged?, nil: break
        }
        let key = defect == .forged ? P256.Signing.PrivateKey() : signingKey
        guard let idToken = try? IDToken.sign(claims: claims, key: key) else {
            return (Self.json(500, ["error": "server_error"]), nil)
        }
        return (
            Self.json(
                200,
                ["access_token": Self.randomHex(16), "token_type": "Bearer", "expires_in": 300, "id_token": idToken]),
            idToken
        )
    }
}

private extension Optional {
    mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}

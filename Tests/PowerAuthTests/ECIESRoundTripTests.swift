@preconcurrency import Crypto
import Foundation
import PowerAuth
import Testing

/// Client ↔ server ECIES in both scopes, and the inputs a server must refuse.
@Suite struct ECIESRoundTripTests {
    nonisolated(unsafe) static let server = P256.KeyAgreement.PrivateKey()
    static let transportKey = Bytes.random(16)

    static func parameters(
        _ scope: EciesParameters.Scope, secret: String = "c2VjcmV0LXNlY3JldC0xMg=="
    ) -> EciesParameters {
        switch scope {
        case .application:
            return .application(
                sharedInfo1: EciesParameters.SharedInfo1.genericApplication, applicationKey: "YXBwLWtleS0xMjM0NTY=",
                applicationSecret: secret)
        case .activation:
            return .activation(
                sharedInfo1: EciesParameters.SharedInfo1.genericActivation, applicationKey: "YXBwLWtleS0xMjM0NTY=",
                applicationSecret: secret, activationId: "0b7c2a3e-1111-4222-8333-944455556666",
                transportKey: transportKey)
        }
    }

    func request(
        _ scope: EciesParameters.Scope, _ text: String = #"{"hello":"server"}"#
    ) throws -> (EciesPayload, EciesResponseDecryptor) {
        try EciesEncryptor(publicKey: Self.server.publicKey, parameters: Self.parameters(scope)).encryptRequest(
            Bytes.utf8(text))
    }

    func decryptor(_ scope: EciesParameters.Scope, secret: String = "c2VjcmV0LXNlY3JldC0xMg==") -> EciesDecryptor {
        EciesDecryptor(privateKey: Self.server, parameters: Self.parameters(scope, secret: secret))
    }

    @Test(arguments: [EciesParameters.Scope.application, .activation])
    func roundTrip(scope: EciesParameters.Scope) throws {
        let (payload, clientSide) = try request(scope)
        let guardian = EciesReplayGuard()
        try guardian.check(payload)
        let (plaintext, serverSide) = try decryptor(scope).decryptRequest(payload)
        #expect(String(decoding: plaintext, as: UTF8.self) == #"{"hello":"server"}"#)
        let answer = try serverSide.encryptResponse(Bytes.utf8(#"{"hello":"client"}"#))
        #expect(answer.ephemeralPublicKey == nil)
        #expect(String(decoding: try clientSide.decryptResponse(answer), as: UTF8.self) == #"{"hello":"client"}"#)
        // The ephemeral key goes out compressed, as 3.2 clients send it.
        #expect(Bytes.base64(payload.ephemeralPublicKey ?? "")?.count == 33)
    }

    @Test(arguments: [EciesParameters.Scope.application, .activation])
    func flippedMACBitIsRejected(scope: EciesParameters.Scope) throws {
        var (payload, _) = try request(scope)
        var mac = try #require(Bytes.base64(payload.mac))
        mac[5] ^= 0x01
        payload.mac = Bytes.base64String(mac)
        #expect(throws: PowerAuthError.macMismatch) { try decryptor(scope).decryptRequest(payload) }
    }

    @Test(arguments: [EciesParameters.Scope.application, .activation])
    func flippedCiphertextOrTimestampIsRejected(scope: EciesParameters.Scope) throws {
        var (payload, _) = try request(scope)
        var data = try #require(Bytes.base64(payload.encryptedData))
        data[0] ^= 0x80
        var altered = payload
        altered.encryptedData = Bytes.base64String(data)
        #expect(throws: PowerAuthError.macMismatch) { try decryptor(scope).decryptRequest(altered) }
        payload.timestamp += 1
        #expect(throws: PowerAuthError.macMismatch) { try decryptor(scope).decryptRequest(payload) }
    }

    @Test(arguments: [EciesParameters.Scope.application, .activation])
    func wrongApplicationSecretIsRejected(scope: EciesParameters.Scope) throws {
        let (payload, _) = try request(scope)
        #expect(throws: PowerAuthError.macMismatch) {
            try decryptor(scope, secret: "d3Jvbmctc2VjcmV0LTEy").decryptRequest(payload)
        }
    }

    @Test func responseForAnotherRequestIsRejected() throws {
        let (first, firstClient) = try request(.application)
        let (second, _) = try request(.application)
        _ = first
        let answer = try decryptor(.application).decryptRequest(second).response.encryptResponse(Bytes.utf8("{}"))
        #expect(throws: PowerAuthError.macMismatch) { try firstClient.decryptResponse(answer) }
    }

    @Test func staleAndReplayedRequestsAreRejected() throws {
        let guardian = EciesReplayGuard(windowMilliseconds: 60_000)
        let now = EciesClock.nowMilliseconds()
        let encryptor = EciesEncryptor(publicKey: Self.server.publicKey, parameters: Self.parameters(.application))
        let stale = try encryptor.encryptRequest(Bytes.utf8("{}"), timestamp: now - 120_000).payload
        #expect(throws: PowerAuthError.staleTimestamp(ageMilliseconds: 120_000)) { try guardian.check(stale, now: now) }
        let future = try encryptor.encryptRequest(Bytes.utf8("{}"), timestamp: now + 120_000).payload
        #expect(throws: PowerAuthError.self) { try guardian.check(future, now: now) }
        let fresh = try encryptor.encryptRequest(Bytes.utf8("{}"), timestamp: now).payload
        try guardian.check(fresh, now: now)
        #expect(throws: PowerAuthError.replayedNonce) { try guardian.check(fresh, now: now + 10) }
    }

    @Test func truncatedBodiesAreRejectedWithoutCrashing() throws {
        let (payload, _) = try request(.activation, String(repeating: "x", count: 100))
        let data = try #require(Bytes.base64(payload.encryptedData))
        for cut in [1, 15, 16, 17, data.count - 1] {
            var truncated = payload
            truncated.encryptedData = Bytes.base64String(data.prefix(data.count - cut))
            #expect(throws: PowerAuthError.self) { try decryptor(.activation).decryptRequest(truncated) }
        }
        var noKey = payload
        noKey.ephemeralPublicKey = nil
        #expect(throws: PowerAuthError.malformedPayload("ephemeralPublicKey is missing")) {
            try decryptor(.activation).decryptRequest(noKey)
        }
        var badKey = payload
        badKey.ephemeralPublicKey = Bytes.base64String(Bytes.random(33))
        #expect(throws: PowerAuthError.self) { try decryptor(.activation).decryptRequest(badKey) }
        var shortNonce = payload
        shortNonce.nonce = "AAAA"
        #expect(throws: PowerAuthError.invalidLength("nonce", expected: 16, actual: 3)) {
            try decryptor(.activation).decryptRequest(shortNonce)
        }
        // A JSON body cut short does not decode into a payload at all.
        let json = try JSONEncoder().encode(payload)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(EciesPayload.self, from: json.prefix(json.count / 2))
        }
    }
}

@Suite struct KnowledgeKeyAndTokenTests {
    @Test func knowledgeKeyUnlocksOnlyWithItsPIN() throws {
        let key = Bytes.random(16)
        let protected = try ProtectedKnowledgeKey.protect(key, pin: Bytes.utf8("1234"))
        #expect(protected.encryptedKey != key)
        #expect(protected.salt.count == 16)
        #expect(try protected.unlock(pin: Bytes.utf8("1234")) == key)
        // A wrong PIN gives a different key, not an error: only the server can tell.
        let wrong = try protected.unlock(pin: Bytes.utf8("1235"))
        #expect(wrong != key)
        #expect(wrong.count == 16)
        #expect(protected.iterations == ProtectedKnowledgeKey.defaultIterations)
        var weakened = protected
        weakened.iterations = 100
        #expect(throws: PowerAuthError.self) { try weakened.unlock(pin: Bytes.utf8("1234")) }
    }

    @Test func tokenDigestFollowsTheSpecifiedInput() throws {
        let secret = Bytes.random(16), nonce = Bytes.random(16)
        let digest = TokenDigest.compute(tokenSecret: secret, nonce: nonce, timestampMilliseconds: 1_700_000_000_123)
        let data = nonce + Bytes.utf8("&1700000000123&3.2")
        #expect(digest == Symmetric.hmacSHA256(key: secret, data: data))
        #expect(
            digest != TokenDigest.compute(tokenSecret: secret, nonce: nonce, timestampMilliseconds: 1_700_000_000_124))
    }

    @Test func hashCounterAndStatusBlobRoundTrip() throws {
        let transportKey = Bytes.random(16), counter = Bytes.random(16)
        let ahead = HashCounter.next(HashCounter.next(counter))
        let blob = StatusBlob(
            state: 3, currentVersion: 3, upgradeVersion: 3, counterByte: 2, failedAttempts: 1, maxFailedAttempts: 5,
            counterLookAhead: 20, counterDataHash: HashCounter.hash(ahead, transportKey: transportKey))
        let challenge = Bytes.random(16), nonce = Bytes.random(16)
        let decrypted = try StatusBlob.decrypt(
            try blob.encrypt(transportKey: transportKey, challenge: challenge, nonce: nonce),
            transportKey: transportKey, challenge: challenge, nonce: nonce)
        #expect(decrypted == blob)
        #expect(decrypted.counterDistance(localCounter: counter, transportKey: transportKey) == 2)
        #expect(decrypted.counterDistance(localCounter: Bytes.random(16), transportKey: transportKey) == nil)
        #expect(throws: PowerAuthError.self) {
            try StatusBlob.decrypt(
                try blob.encrypt(transportKey: transportKey, challenge: challenge, nonce: nonce),
                transportKey: Bytes.random(16), challenge: challenge, nonce: nonce)
        }
    }
}

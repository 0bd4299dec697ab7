import Crypto
import Foundation
import PowerAuth
import TestSupport
import Testing

/// ECIES has no published vectors: the Swift side is checked against an
/// independent Python implementation (`Reference/ecies_reference.py`), both ways.
@Suite struct ECIESCrossCheckTests {
    @Test func swiftServerDecryptsPythonRequestsAndAnswersIdentically() throws {
        let fixtures = try ECIESFixture.all()
        for fixture in fixtures {
            let decryptor = EciesDecryptor(
                privateKey: try P256Keys.privateKey(fixture.bytes(fixture.serverPrivateKey)),
                parameters: try fixture.parameters)
            let (plaintext, response) = try decryptor.decryptRequest(fixture.request)
            #expect(plaintext == (try fixture.bytes(fixture.requestPlaintext)), "\(fixture.name)")
            let answer = try response.encryptResponse(
                try fixture.bytes(fixture.responsePlaintext), nonce: fixture.bytes(fixture.responseNonce),
                timestamp: fixture.responseTimestamp)
            #expect(answer == fixture.response, "\(fixture.name): Swift's response differs from Python's")
        }
        print("ecies-3.2.json: \(fixtures.count) Python requests decrypted, responses byte-identical")
        #expect(fixtures.count >= 6)
    }

    @Test func swiftClientReproducesPythonRequestsAndDecryptsPythonResponses() throws {
        let fixtures = try ECIESFixture.all()
        for fixture in fixtures {
            let encryptor = EciesEncryptor(
                publicKey: try P256Keys.publicKey(fixture.bytes(fixture.serverPublicKey)),
                parameters: try fixture.parameters)
            let (payload, response) = try encryptor.encryptRequest(
                try fixture.bytes(fixture.requestPlaintext),
                ephemeral: try P256Keys.privateKey(fixture.bytes(fixture.ephemeralPrivateKey)),
                nonce: try fixture.bytes(fixture.requestNonce), timestamp: fixture.requestTimestamp
            )
            #expect(payload == fixture.request, "\(fixture.name): Swift's request differs from Python's")
            #expect(
                try response.decryptResponse(fixture.response) == fixture.bytes(fixture.responsePlaintext),
                "\(fixture.name)")
        }
        #expect(fixtures.count >= 6)
    }

    /// Fresh Swift requests (random keys) and Swift server responses, opened by Python.
    @Test func pythonDecryptsWhatSwiftEncrypted() throws {
        let fixtures = try ECIESFixture.all()
        var cases: [[String: Any]] = []
        var expected: [String: [UInt8]] = [:]
        for fixture in fixtures {
            let common: [String: Any] = [
                "scope": fixture.scope, "sharedInfo1": fixture.sharedInfo1, "applicationKey": fixture.applicationKey,
                "applicationSecret": fixture.applicationSecret, "activationId": fixture.activationId ?? "",
                "transportKey": fixture.transportKey ?? "", "serverPrivateKey": fixture.serverPrivateKey,
                "serverPublicKey": fixture.serverPublicKey, "ephemeralPrivateKey": fixture.ephemeralPrivateKey,
            ]
            let message =
                Bytes.utf8("{\"from\":\"swift\",\"case\":\"\(fixture.name)\"}") + Bytes.random(Int.random(in: 0...40))
            let encryptor = EciesEncryptor(
                publicKey: try P256Keys.publicKey(fixture.bytes(fixture.serverPublicKey)),
                parameters: try fixture.parameters)
            let (request, _) = try encryptor.encryptRequest(message)
            cases.append(
                common.merging([
                    "kind": "request", "name": "request \(fixture.name)", "payload": try Self.json(request),
                ]) { $1 })
            expected["request \(fixture.name)"] = message

            let decryptor = EciesDecryptor(
                privateKey: try P256Keys.privateKey(fixture.bytes(fixture.serverPrivateKey)),
                parameters: try fixture.parameters)
            let answer = try decryptor.decryptRequest(fixture.request).response.encryptResponse(message.reversed())
            cases.append(
                common.merging([
                    "kind": "response", "name": "response \(fixture.name)", "payload": try Self.json(answer),
                ]) { $1 })
            expected["response \(fixture.name)"] = message.reversed()
        }
        let results = try Self.runReference(input: ["data": cases])
        #expect(results.count == cases.count)
        for result in results {
            let name = try #require(result["name"])
            #expect(result["error"] == nil, "\(name): \(result["error"] ?? "")")
            #expect(result["plaintext"].flatMap(Bytes.base64) == expected[name], "\(name)")
        }
        print("ecies_reference.py decrypted \(results.count) Swift payloads (requests and responses, both scopes)")
    }

    static func json(_ payload: EciesPayload) throws -> Any {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(payload))
    }

    static func runReference(input: [String: Any]) throws -> [[String: String]] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Reference/ecies_reference.py")
        let (status, output) = try runProgram(
            "/usr/bin/env", ["python3", script.path, "decrypt"],
            input: try JSONSerialization.data(withJSONObject: input))
        #expect(status == 0, "ecies_reference.py failed (is python3-cryptography installed? `make deps`): \(output)")
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return try #require(object?["data"] as? [[String: String]])
    }
}

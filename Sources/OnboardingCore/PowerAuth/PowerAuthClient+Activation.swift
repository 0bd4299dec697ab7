@preconcurrency import Crypto
import Foundation
import PowerAuth

extension PowerAuthClient {
    /// Creates a device activation with custom credentials and stores it.
    ///
    /// Level 2 (`/pa/activation`) carries the device public key; level 1
    /// (`/pa/generic/application`) carries `"type":"CUSTOM"`, the identity
    /// attributes and the level-2 payload. Both responses are MAC-checked; the
    /// server public key must be a valid P-256 point and the counter 16 bytes.
    public func activate(
        name: String, identityAttributes: [String: String], pin: [UInt8]
    ) async throws -> DeviceActivation {
        guard pin.count >= 4 else { throw PowerAuthClientError.invalidPIN("the PIN must have at least 4 characters") }
        if try await activations.load(settings.instanceID) != nil {
            throw PowerAuthClientError.alreadyActivated(instance: settings.instanceID)
        }
        let masterKey: P256.KeyAgreement.PublicKey
        do {
            masterKey = try P256Keys.publicKey(settings.masterServerPublicKey, what: "master server public key")
        } catch {
            throw PowerAuthClientError.protocolError("the configured master server public key is not a P-256 point")
        }
        let deviceKey = P256.KeyAgreement.PrivateKey()
        let devicePublic = Array(deviceKey.publicKey.x963Representation)

        let layer2 = Self.json([
            "activationName": name, "devicePublicKey": Bytes.base64String(devicePublic), "platform": "linux",
            "deviceInfo": "tokenctl",
        ])
        let inner = try EciesEncryptor(
            publicKey: masterKey,
            parameters: .application(
                sharedInfo1: EciesParameters.SharedInfo1.activationLayer2, applicationKey: settings.applicationKey,
                applicationSecret: settings.applicationSecret
            )
        ).encryptRequest(layer2)
        let innerObject = try JSONSerialization.jsonObject(with: JSONEncoder().encode(inner.payload))
        let layer1 = Self.json([
            "type": "CUSTOM", "identityAttributes": identityAttributes, "activationData": innerObject,
        ])
        let outer = try EciesEncryptor(
            publicKey: masterKey,
            parameters: .application(
                sharedInfo1: EciesParameters.SharedInfo1.genericApplication, applicationKey: settings.applicationKey,
                applicationSecret: settings.applicationSecret
            )
        ).encryptRequest(layer1)

        let encryptionHeader =
            "PowerAuth version=\"\(PowerAuthVersion.current)\", application_key=\"\(settings.applicationKey)\""
        let reply = try await post(
            "/pa/v3/activation/create", headers: [("X-PowerAuth-Encryption", encryptionHeader)],
            body: Array(try JSONEncoder().encode(outer.payload)))
        if reply.status == 400, reply.errorObject?["code"] as? String == "ERR_ACTIVATION" {
            throw PowerAuthClientError.rejected(
                message: reply.errorObject?["message"] as? String ?? "activation refused",
                remainingAttempts: reply.object?["remainingAttempts"] as? Int
            )
        }
        try check(reply)

        let layer1Answer = try Self.object(
            Self.decrypt(Self.payload(reply.body, "the activation response"), with: outer.response, "level-1 response"),
            "the level-1 response")
        guard let innerAnswerObject = layer1Answer["activationData"],
            let innerAnswerData = try? JSONSerialization.data(withJSONObject: innerAnswerObject)
        else {
            throw PowerAuthClientError.protocolError("the level-1 response has no activationData")
        }
        let layer2Answer = try Self.object(
            Self.decrypt(
                Self.payload(Array(innerAnswerData), "activationData"), with: inner.response, "level-2 response"),
            "the level-2 response")
        guard let activationID = layer2Answer["activationId"] as? String, !activationID.isEmpty,
            activationID.utf8.count <= 64
        else {
            throw PowerAuthClientError.protocolError("the level-2 response has no activationId")
        }
        guard let serverKeyBytes = (layer2Answer["serverPublicKey"] as? String).flatMap(Bytes.base64),
            let serverKey = try? P256Keys.publicKey(serverKeyBytes, what: "server public key")
        else { throw PowerAuthClientError.protocolError("the server public key is not a valid P-256 point") }
        guard let counterData = (layer2Answer["ctrData"] as? String).flatMap(Bytes.base64), counterData.count == 16
        else {
            throw PowerAuthClientError.protocolError("ctrData must be 16 bytes")
        }

        let keys = DerivedKeys(masterSecret: try P256Keys.masterSecret(deviceKey, serverKey))
        let activation = DeviceActivation(
            instanceID: settings.instanceID, activationID: activationID, name: name, createdAt: Date().ISO8601Format(),
            serverPublicKey: Array(serverKey.x963Representation), devicePublicKey: devicePublic,
            devicePrivateKeyVault: try Symmetric.aesEncrypt(
                Array(deviceKey.rawRepresentation), key: keys.vault, iv: [UInt8](repeating: 0, count: 16)),
            possessionKey: keys.possession, transportKey: keys.transport,
            knowledgeKey: try ProtectedKnowledgeKey.protect(keys.knowledge, pin: pin),
            counterData: counterData, counter: 0, token: nil
        )
        guard try await activations.insert(activation) else {
            throw PowerAuthClientError.alreadyActivated(instance: settings.instanceID)
        }
        return activation
    }

    /// What `/pa/v3/activation/status` says about the stored activation.
    public struct Status: Sendable, Equatable {
        public var activationID: String
        public var blob: StatusBlob
        public var state: String
        /// From `customObject.activationFlags`, not from the blob.
        public var flags: [String]
        /// Steps the server's counter is ahead of the local one; nil when out of the window.
        public var counterDistance: Int?
        public var fingerprint: String
    }

    public func status() async throws -> Status {
        let activation = try await requireActivation()
        let challenge = Bytes.random(16)
        let reply = try await post(
            "/pa/v3/activation/status",
            body: Self.json([
                "requestObject": ["activationId": activation.activationID, "challenge": Bytes.base64String(challenge)]
            ]))
        try check(reply)
        guard let object = reply.object?["responseObject"] as? [String: Any],
            let blobBytes = (object["encryptedStatusBlob"] as? String).flatMap(Bytes.base64),
            let nonce = (object["nonce"] as? String).flatMap(Bytes.base64), nonce.count == 16
        else { throw PowerAuthClientError.protocolError("the status response lacks encryptedStatusBlob or nonce") }
        let blob: StatusBlob
        do {
            blob = try StatusBlob.decrypt(
                blobBytes, transportKey: activation.transportKey, challenge: challenge, nonce: nonce)
        } catch let error as PowerAuthError {
            throw PowerAuthClientError.protocolError("status blob: \(error.description)")
        }
        let flags = ((object["customObject"] as? [String: Any])?["activationFlags"] as? [Any] ?? []).compactMap {
            $0 as? String
        }
        return Status(
            activationID: activation.activationID, blob: blob,
            state: StatusBlob.State(rawValue: blob.state)?.description ?? "UNKNOWN(\(blob.state))",
            flags: flags,
            counterDistance: blob.counterDistance(
                localCounter: activation.counterData, transportKey: activation.transportKey),
            fingerprint: activation.fingerprint
        )
    }

    /// Creates a MAC token with a signed, activation-scope encrypted request and stores it.
    public func createToken(factor: SignatureFactor, pin: [UInt8]?) async throws -> DeviceActivation.Token {
        let activation = try await requireActivation()
        guard let serverKey = try? P256Keys.publicKey(activation.serverPublicKey) else {
            throw PowerAuthClientError.protocolError("stored server public key is invalid")
        }
        let request = try EciesEncryptor(
            publicKey: serverKey,
            parameters: .activation(
                sharedInfo1: EciesParameters.SharedInfo1.tokenCreate, applicationKey: settings.applicationKey,
                applicationSecret: settings.applicationSecret, activationId: activation.activationID,
                transportKey: activation.transportKey
            )
        ).encryptRequest(Bytes.utf8("{}"))
        let body = Array(try JSONEncoder().encode(request.payload))
        let header = try await authorizationHeader(
            activation, uriIdentifier: "/pa/token/create", body: body, factor: factor, pin: pin)
        let reply = try await post("/pa/v3/token/create", headers: [("X-PowerAuth-Authorization", header)], body: body)
        try await explainingAuthFailure(factor: factor) { try check(reply) }
        let answer = try Self.object(
            Self.decrypt(Self.payload(reply.body, "the token response"), with: request.response, "token response"),
            "the token response")
        guard let id = answer["tokenId"] as? String, !id.isEmpty,
            let secret = (answer["tokenSecret"] as? String).flatMap(Bytes.base64), secret.count == 16
        else { throw PowerAuthClientError.protocolError("the token response lacks tokenId or a 16-byte tokenSecret") }
        let token = DeviceActivation.Token(id: id, secret: secret, factor: factor)
        try await activations.saveToken(token, instanceID: activation.instanceID)
        return token
    }

    /// Removes the activation on the server (signed) and forgets it locally.
    public func remove(factor: SignatureFactor, pin: [UInt8]?) async throws {
        _ = try await signedRequest(
            path: "/pa/v3/activation/remove", body: Self.json(["requestObject": [String: String]()]), factor: factor,
            pin: pin)
        _ = try await forget()
    }
}

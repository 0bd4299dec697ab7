@preconcurrency import Crypto
import Foundation
import PowerAuth

extension PowerAuthServer {
    /// `POST /pa/v3/activation/create` with custom credentials: level 1 (application
    /// scope, `/pa/generic/application`) carries the identity attributes and the
    /// level-2 payload (`/pa/activation`) with the device public key.
    func createActivation(_ request: RecordedRequest) -> SandboxReply {
        guard let encryption = PowerAuthHeaderFields.parse(request.header("X-PowerAuth-Encryption")),
            encryption["version"] == PowerAuthVersion.current
        else { return Self.error(400, "ERR_ENCRYPTION", "X-PowerAuth-Encryption header with version=\"3.2\" required") }
        guard encryption["application_key"] == identity.applicationKey else {
            return Self.error(401, "POWERAUTH_AUTH_FAIL", "unknown application key")
        }
        guard let outer = Self.payload(request.body) else {
            return Self.error(400, "ERR_ENCRYPTION", "body is not an encrypted payload")
        }
        let levelOne = EciesDecryptor(
            privateKey: identity.masterPrivateKey,
            parameters: .application(
                sharedInfo1: EciesParameters.SharedInfo1.genericApplication, applicationKey: identity.applicationKey,
                applicationSecret: identity.applicationSecret))
        let levelTwo = EciesDecryptor(
            privateKey: identity.masterPrivateKey,
            parameters: .application(
                sharedInfo1: EciesParameters.SharedInfo1.activationLayer2, applicationKey: identity.applicationKey,
                applicationSecret: identity.applicationSecret))
        do {
            try replayGuard.check(outer)
            let (outerPlain, outerResponse) = try levelOne.decryptRequest(outer)
            guard let layer1 = Self.object(outerPlain), layer1["type"] as? String == "CUSTOM" else {
                return Self.error(400, "ERR_ACTIVATION", "level 1 must be {\"type\":\"CUSTOM\", …}")
            }
            guard let inner = Self.payload(layer1["activationData"]) else {
                return Self.error(400, "ERR_ACTIVATION", "activationData missing")
            }
            let (innerPlain, innerResponse) = try levelTwo.decryptRequest(inner)
            guard let layer2 = Self.object(innerPlain),
                let keyText = layer2["devicePublicKey"] as? String, let keyBytes = Bytes.base64(keyText),
                let devicePublicKey = try? P256Keys.publicKey(keyBytes, what: "device public key")
            else { return Self.error(400, "ERR_ACTIVATION", "level 2 needs a valid devicePublicKey") }
            let attributes = (layer1["identityAttributes"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
            let activationId = UUID().uuidString.lowercased()
            switch check(attributes, activationId: activationId) {
            case .reject(let message, let remaining):
                return Self.error(
                    400, "ERR_ACTIVATION", message, extra: remaining.map { ["remainingAttempts": $0] } ?? [:])
            case .accept(let flags):
                let activation = try ServerActivation(
                    id: activationId, name: layer2["activationName"] as? String ?? "", devicePublicKey: devicePublicKey,
                    flags: flags)
                activations.withLock { $0[activation.id] = activation }
                let layer2Response = Self.json([
                    "activationId": activation.id,
                    "serverPublicKey": Bytes.base64String(activation.serverPrivateKey.publicKey.x963Representation),
                    "ctrData": Bytes.base64String(activation.counterData),
                ])
                let innerAnswer = try innerResponse.encryptResponse(Bytes.utf8(layer2Response))
                let innerObject = try JSONSerialization.jsonObject(with: JSONEncoder().encode(innerAnswer))
                let layer1Response = Self.json([
                    "activationData": innerObject, "customAttributes": layer1["customAttributes"] ?? [String: Any](),
                ])
                return Self.encrypted(try outerResponse.encryptResponse(Bytes.utf8(layer1Response)))
            }
        } catch let error as PowerAuthError {
            return Self.error(400, "ERR_ENCRYPTION", error.description)
        } catch {
            return Self.error(500, "ERROR_GENERIC", "activation failed")
        }
    }

    /// `POST /pa/v3/activation/status`: `{activationId, challenge}` → encrypted status
    /// blob, its nonce, and the activation flags in `customObject`.
    func activationStatus(_ request: RecordedRequest) -> SandboxReply {
        guard let body = Self.object(request.body)?["requestObject"] as? [String: Any],
            let id = body["activationId"] as? String,
            let challenge = (body["challenge"] as? String).flatMap(Bytes.base64), challenge.count == 16
        else {
            return Self.error(400, "INVALID_REQUEST", "requestObject needs activationId and a 16-byte Base64 challenge")
        }
        guard let activation = activations.withLock({ $0[id] }) else {
            return Self.error(400, "ERR_ACTIVATION", "POWER_AUTH_ACTIVATION_NOT_FOUND")
        }
        let nonce = Bytes.random(16)
        guard
            let blob = try? activation.statusBlob().encrypt(
                transportKey: activation.keys.transport, challenge: challenge, nonce: nonce)
        else {
            return Self.error(500, "ERROR_GENERIC", "status encryption failed")
        }
        return Self.ok([
            "activationId": id,
            "encryptedStatusBlob": Bytes.base64String(blob),
            "nonce": Bytes.base64String(nonce),
            "customObject": ["activationFlags": activation.flags],
        ])
    }

    /// `POST /pa/v3/activation/remove`, signed with two factors (possession and knowledge),
    /// as a real server requires: possession alone is refused with 401 before it is verified.
    func removeActivation(_ request: RecordedRequest) -> SandboxReply {
        let factor = PowerAuthHeaderFields.parse(request.header("X-PowerAuth-Authorization"))?["pa_signature_type"]
            .flatMap(SignatureFactor.init(rawValue:))
        guard let keys = factor?.keys, keys.contains(.possession), keys.count >= 2 else {
            return Self.error(
                401, "POWERAUTH_AUTH_FAIL",
                "signature type not allowed: removing an activation needs possession and knowledge")
        }
        switch verifySignature(request, uriIdentifier: "/pa/activation/remove") {
        case .failure(let reply): return reply
        case .success(let id):
            removeActivation(id: id)
            return Self.ok(["activationId": id])
        }
    }
}

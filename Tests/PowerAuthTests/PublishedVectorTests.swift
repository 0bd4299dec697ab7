import Crypto
import Foundation
import PowerAuth
import Testing

/// Every entry of every published PowerAuth vector file, every output field.
@Suite struct PublishedVectorTests {
    @Test func masterSecretKey() throws {
        try VectorFile("compute-master-secret-key").checkAll { entry in
            let devicePrivate = try P256Keys.privateKey(try entry.bytes("devicePrivateKey"))
            let serverPrivate = try P256Keys.privateKey(try entry.bytes("serverPrivateKey"))
            let devicePublic = try P256Keys.publicKey(try entry.bytes("devicePublicKey"))
            let serverPublic = try P256Keys.publicKey(try entry.bytes("serverPublicKey"))
            let expected = try entry.bytes("masterSecretKey", in: \.output)
            // The private keys belong to the given public keys …
            #expect(Array(devicePrivate.publicKey.x963Representation) == Array(devicePublic.x963Representation))
            #expect(Array(serverPrivate.publicKey.x963Representation) == Array(serverPublic.x963Representation))
            // … and both sides reach the same master secret.
            #expect(try P256Keys.masterSecret(devicePrivate, serverPublic) == expected)
            #expect(try P256Keys.masterSecret(serverPrivate, devicePublic) == expected)
        }
    }

    @Test func derivedKeys() throws {
        try VectorFile("compute-derived-keys").checkAll { entry in
            let keys = DerivedKeys(masterSecret: try entry.bytes("masterSecretKey"))
            #expect(keys.possession == (try entry.bytes("signaturePossessionKey", in: \.output)))
            #expect(keys.knowledge == (try entry.bytes("signatureKnowledgeKey", in: \.output)))
            #expect(keys.biometry == (try entry.bytes("signatureBiometryKey", in: \.output)))
            #expect(keys.transport == (try entry.bytes("transportKey", in: \.output)))
            #expect(keys.vault == (try entry.bytes("vaultEncryptionKey", in: \.output)))
        }
    }

    @Test func signaturesV3Decimal() throws {
        try VectorFile("signatures-v3").checkAll { entry in
            let (keys, counter, data) = try Self.signatureInputs(entry)
            #expect(Signature.decimal(data: data, keys: keys, counter: counter) == entry.output["signature"])
        }
    }

    @Test func signaturesV31Online() throws {
        try VectorFile("signatures-v31").checkAll { entry in
            let (keys, counter, data) = try Self.signatureInputs(entry)
            #expect(Signature.online(data: data, keys: keys, counter: counter) == entry.output["signature"])
        }
    }

    @Test func offlineSignatures() throws {
        try VectorFile("signatures-offline").checkAll { entry in
            let (keys, counter, data) = try Self.signatureInputs(entry)
            let digits = try #require(entry.input["signatureComponentLength"].flatMap(Int.init))
            #expect(
                Signature.decimal(data: data, keys: keys, counter: counter, digits: digits) == entry.output["signature"]
            )
        }
    }

    @Test func publicKeyFingerprint() throws {
        try VectorFile("public-key-fingerprint-v3").checkAll { entry in
            let device = try P256Keys.publicKey(try entry.bytes("devicePublicKey"))
            let server = try P256Keys.publicKey(try entry.bytes("serverPublicKey"))
            let activationId = try #require(entry.output["activationId"])
            #expect(P256Keys.xCoordinate(device) == (try entry.bytes("devicePublicKeyCoordX", in: \.output)))
            #expect(P256Keys.xCoordinate(server) == (try entry.bytes("serverPublicKeyCoordX", in: \.output)))
            #expect(
                Fingerprint.compute(devicePublicKey: device, serverPublicKey: server, activationId: activationId)
                    == entry.output["fingerprint"])
        }
    }

    @Test func statusBlobIV() throws {
        try VectorFile("activation-status-blob-iv").checkAll { entry in
            let iv = StatusBlob.iv(
                transportKey: try entry.bytes("transportKey"), challenge: try entry.bytes("challenge"),
                nonce: try entry.bytes("nonce"))
            #expect(iv == (try entry.bytes("iv", in: \.output)))
        }
    }

    @Test func statusBlobData() throws {
        try VectorFile("activation-status-blob-data").checkAll { entry in
            let transportKey = try entry.bytes("transportKey")
            let blob = try StatusBlob.decrypt(
                try entry.bytes("encryptedStatusBlob"), transportKey: transportKey,
                challenge: try entry.bytes("challenge"), nonce: try entry.bytes("nonce")
            )
            let output = entry.output
            #expect(String(blob.state) == output["activationStatus"])
            #expect(String(blob.currentVersion) == output["currentVersion"])
            #expect(String(blob.upgradeVersion) == output["upgradeVersion"])
            #expect(String(blob.failedAttempts) == output["failedAttempts"])
            #expect(String(blob.maxFailedAttempts) == output["maxFailedAttempts"])
            #expect(String(blob.counterLookAhead) == output["ctrLookAhead"])
            #expect(String(blob.counterByte) == output["ctrByte"])
            #expect(blob.counterDataHash == (try entry.bytes("ctrDataHash", in: \.output)))
            let distance = blob.counterDistance(localCounter: try entry.bytes("ctrData"), transportKey: transportKey)
            #expect(distance.map(String.init) == output["counterDistance"])
        }
    }

    @Test func activationDataSignature() throws {
        try VectorFile("verify-activation-data-signature-v3").checkAll { entry in
            let code = Bytes.utf8(try #require(entry.input["activationCode"]))
            let publicKey = try entry.bytes("masterPublicKey")
            let signature = try entry.bytes("activationSignature", in: \.output)
            #expect(try ActivationDataSignature.verify(code, signatureDER: signature, masterPublicKey: publicKey))
            // The private key of the entry is the one that signs for that public key.
            let fresh = try ActivationDataSignature.sign(code, masterPrivateKey: try entry.bytes("masterPrivateKey"))
            #expect(try ActivationDataSignature.verify(code, signatureDER: fresh, masterPublicKey: publicKey))
            #expect(
                try !ActivationDataSignature.verify(code + [0x20], signatureDER: signature, masterPublicKey: publicKey))
        }
    }

    static func signatureInputs(_ entry: VectorFile.Entry) throws -> ([[UInt8]], [UInt8], [UInt8]) {
        let type = try #require(entry.input["signatureType"].flatMap(SignatureFactor.init(rawValue:)))
        let keys = try type.keys.map { key -> [UInt8] in
            switch key {
            case .possession: try entry.bytes("signaturePossessionKey")
            case .knowledge: try entry.bytes("signatureKnowledgeKey")
            case .biometry: try entry.bytes("signatureBiometryKey")
            }
        }
        return (keys, try entry.bytes("counterData"), try entry.bytes("data"))
    }
}

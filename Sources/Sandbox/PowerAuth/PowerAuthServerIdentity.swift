@preconcurrency import Crypto
import Foundation
import PowerAuth

/// The application credentials and master key pair of the simulated PowerAuth
/// server: generated at start, or loaded from (and saved to) a JSON file.
public struct PowerAuthServerIdentity: Sendable {
    public var applicationKey: String
    public var applicationSecret: String
    public var masterPrivateKey: P256.KeyAgreement.PrivateKey

    /// The master public key clients are configured with (Base64 of the uncompressed point).
    public var masterPublicKeyBase64: String { Bytes.base64String(masterPrivateKey.publicKey.x963Representation) }

    public init(applicationKey: String, applicationSecret: String, masterPrivateKey: P256.KeyAgreement.PrivateKey) {
        self.applicationKey = applicationKey
        self.applicationSecret = applicationSecret
        self.masterPrivateKey = masterPrivateKey
    }

    public static func generate() -> PowerAuthServerIdentity {
        PowerAuthServerIdentity(
            applicationKey: Bytes.base64String(Bytes.random(16)),
            applicationSecret: Bytes.base64String(Bytes.random(16)),
            masterPrivateKey: P256.KeyAgreement.PrivateKey()
        )
    }

    private struct File: Codable {
        var applicationKey: String
        var applicationSecret: String
        var masterPrivateKey: String
    }

    /// Loads the identity from `path`, or generates one and writes it there (mode 0600).
    public static func loadOrCreate(path: String) throws -> PowerAuthServerIdentity {
        if FileManager.default.fileExists(atPath: path) {
            let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            guard let scalar = Bytes.base64(file.masterPrivateKey) else {
                throw PowerAuthError.invalidBase64("masterPrivateKey in \(path)")
            }
            return PowerAuthServerIdentity(
                applicationKey: file.applicationKey, applicationSecret: file.applicationSecret,
                masterPrivateKey: try P256Keys.privateKey(scalar))
        }
        let identity = generate()
        let file = File(
            applicationKey: identity.applicationKey, applicationSecret: identity.applicationSecret,
            masterPrivateKey: Bytes.base64String(identity.masterPrivateKey.rawRepresentation))
        try writePrivate(try JSONEncoder().encode(file), to: path)
        return identity
    }

    /// Writes the application secret alone to `path` (mode 0600), the form a client's
    /// `powerauth.application-secret-file` expects.
    public func writeApplicationSecret(to path: String) throws {
        try Self.writePrivate(Data((applicationSecret + "\n").utf8), to: path)
    }

    private static func writePrivate(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: data)
        try handle.close()
    }
}

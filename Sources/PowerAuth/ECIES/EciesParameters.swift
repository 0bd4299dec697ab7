/// What binds an ECIES exchange to its purpose: `SHARED_INFO_1` (the endpoint
/// constant), `SHARED_INFO_2_BASE` (application secret, and in activation scope
/// the transport key) and the associated data of protocol 3.2.
public struct EciesParameters: Sendable {
    public enum Scope: String, Sendable { case application, activation }

    /// The `SHARED_INFO_1` constants of protocol 3.2.
    public enum SharedInfo1 {
        public static let genericApplication = "/pa/generic/application"
        public static let genericActivation = "/pa/generic/activation"
        public static let activationLayer2 = "/pa/activation"
        public static let tokenCreate = "/pa/token/create"
    }

    public var scope: Scope
    public var sharedInfo1: [UInt8]
    public var sharedInfo2Base: [UInt8]
    public var associatedData: [UInt8]

    /// Application scope: `SH2_BASE = SHA-256(APP_SECRET)`, `AD = sizes(VERSION, APP_KEY)`.
    /// The application secret is used as the ASCII text of its Base64 form.
    public static func application(
        sharedInfo1: String, applicationKey: String, applicationSecret: String
    ) -> EciesParameters {
        EciesParameters(
            scope: .application,
            sharedInfo1: Bytes.utf8(sharedInfo1),
            sharedInfo2Base: Symmetric.sha256(Bytes.utf8(applicationSecret)),
            associatedData: Bytes.joinedWithSizes([Bytes.utf8(PowerAuthVersion.current), Bytes.utf8(applicationKey)])
        )
    }

    /// Activation scope: `SH2_BASE = HMAC-SHA256(KEY_TRANSPORT, APP_SECRET)`,
    /// `AD = sizes(VERSION, APP_KEY, ACTIVATION_ID)`.
    public static func activation(
        sharedInfo1: String, applicationKey: String, applicationSecret: String, activationId: String,
        transportKey: [UInt8]
    ) -> EciesParameters {
        EciesParameters(
            scope: .activation,
            sharedInfo1: Bytes.utf8(sharedInfo1),
            sharedInfo2Base: Symmetric.hmacSHA256(key: transportKey, data: Bytes.utf8(applicationSecret)),
            associatedData: Bytes.joinedWithSizes([
                Bytes.utf8(PowerAuthVersion.current), Bytes.utf8(applicationKey), Bytes.utf8(activationId),
            ])
        )
    }

    /// `SHARED_INFO_2 = sizes(SH2_BASE, NONCE, TIMESTAMP, KEY_EPH_PUB, AD)`; the
    /// ephemeral key is absent (zero length) for responses.
    func sharedInfo2(nonce: [UInt8], timestamp: Int64, ephemeralPublicKey: [UInt8]?) -> [UInt8] {
        Bytes.joinedWithSizes([
            sharedInfo2Base, nonce, Bytes.bigEndian(UInt64(bitPattern: timestamp)), ephemeralPublicKey, associatedData,
        ])
    }
}

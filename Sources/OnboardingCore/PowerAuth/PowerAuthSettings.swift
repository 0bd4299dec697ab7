/// Where the PowerAuth server is and what identifies this application to it.
public struct PowerAuthSettings: Sendable, Equatable {
    /// Base URL of the server that publishes `/pa/v3/…` (the enrollment server).
    public var baseURL: String
    public var applicationKey: String
    /// The application secret (its Base64 text), read from a file or the environment.
    public var applicationSecret: String
    /// The master server public key (uncompressed P-256 point).
    public var masterServerPublicKey: [UInt8]
    /// Which local device activation to use; one per instance id.
    public var instanceID: String

    public init(
        baseURL: String, applicationKey: String, applicationSecret: String, masterServerPublicKey: [UInt8],
        instanceID: String
    ) {
        self.baseURL = baseURL
        self.applicationKey = applicationKey
        self.applicationSecret = applicationSecret
        self.masterServerPublicKey = masterServerPublicKey
        self.instanceID = instanceID
    }
}

import ErrorCodes

/// The TLS files of one server's connections (`<server>.tls.*`): a CA bundle to trust
/// instead of the system's, and a client certificate and key for mutual TLS.
public struct TLSFiles: Sendable, Equatable {
    public var caFile: String?
    public var clientCertificateFile: String?
    public var clientKeyFile: String?

    public init(caFile: String? = nil, clientCertificateFile: String? = nil, clientKeyFile: String? = nil) {
        self.caFile = caFile
        self.clientCertificateFile = clientCertificateFile
        self.clientKeyFile = clientKeyFile
    }

    /// Checks the files before anything is sent, so that a local mistake is a
    /// configuration error (78) instead of a failed connection (69): each file must be
    /// readable PEM of the right kind, the client key private to its owner, and a key
    /// needs its certificate.
    ///
    /// - Parameter prefix: the configuration keys' prefix, such as `tmp.tls`, for messages.
    /// - Throws: ``ConfigurationError`` naming the key and the file.
    public func check(keyPrefix prefix: String) throws(ConfigurationError) {
        let caKey = prefix + ".ca-file", certificateKey = prefix + ".client-cert-file",
            keyKey = prefix + ".client-key-file"
        if let path = caFile {
            try Self.expectPEM(path, key: caKey, containing: "CERTIFICATE", kind: "certificates")
        }
        if let path = clientCertificateFile {
            try Self.expectPEM(path, key: certificateKey, containing: "CERTIFICATE", kind: "a certificate")
        }
        if let path = clientKeyFile {
            guard clientCertificateFile != nil else {
                throw .secretMissing("\(keyKey) is set without \(certificateKey); a client key needs its certificate")
            }
            try Self.expectPEM(path, key: keyKey, containing: "PRIVATE KEY", kind: "a private key")
            try SecretFile.checkPrivate(path, key: keyKey)
        }
    }

    private static func expectPEM(
        _ path: String, key: String, containing label: String, kind: String
    ) throws(ConfigurationError) {
        let contents = try SecretFile.read(path, key: key, limit: 1 << 20, isSecret: false)
        guard contents.contains("-----BEGIN "), contents.contains(label + "-----") else {
            throw .fileInvalid(key: key, path: path, expected: "PEM holding \(kind)")
        }
    }
}

import Glibc

/// Checks the TLS files named by `tmp.tls.*` before anything is sent, so that a local
/// mistake is a configuration error (78) instead of a failed connection (69): each file
/// must be readable PEM of the right kind, the client key private to its owner, and a
/// key needs its certificate.
enum TLSFiles {
    static func check(_ tls: Settings.TLS) throws(ConfigurationError) {
        if let path = tls.caFile {
            try expectPEM(path, key: ConfigKeys.tmpCAFile, containing: "CERTIFICATE", kind: "certificates")
        }
        if let path = tls.clientCertificateFile {
            try expectPEM(path, key: ConfigKeys.tmpClientCertFile, containing: "CERTIFICATE", kind: "a certificate")
        }
        if let path = tls.clientKeyFile {
            guard tls.clientCertificateFile != nil else {
                throw .secretMissing("\(ConfigKeys.tmpClientKeyFile) is set without \(ConfigKeys.tmpClientCertFile); a client key needs its certificate")
            }
            try expectPEM(path, key: ConfigKeys.tmpClientKeyFile, containing: "PRIVATE KEY", kind: "a private key")
            try SecretFile.checkPrivate(path, key: ConfigKeys.tmpClientKeyFile)
        }
    }

    private static func expectPEM(_ path: String, key: String, containing label: String, kind: String) throws(ConfigurationError) {
        let contents = try SecretFile.read(path, key: key, limit: 1 << 20, isSecret: false)
        guard contents.contains("-----BEGIN "), contents.contains(label + "-----") else {
            throw .fileInvalid(key: key, path: path, expected: "PEM holding \(kind)")
        }
    }
}

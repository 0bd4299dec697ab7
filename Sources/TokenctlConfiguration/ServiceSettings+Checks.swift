import ErrorCodes
import Glibc
import HTTPTransport

extension ServiceSettings {
    /// What `tokenctl config check` and `tokenctl serve` verify of the `service.*` keys before
    /// anything listens, each check on its own so that every problem is named at once: the
    /// socket's directory can be made, its mode keeps other users out, the TLS files are PEM
    /// of the right kind and the key private, the bearer token's file private and not empty.
    /// Each throws a ``ConfigurationError`` (78) naming the key and the file.
    public var checks: [() throws -> Void] {
        [
            { try Self.checkSocketDirectory(socket) },
            {
                guard socketMode & 0o002 == 0 else {
                    throw ConfigurationError.unusableValue(
                        key: ConfigKeys.serviceSocketMode,
                        "0\(String(socketMode, radix: 8)) lets every user of the host write to the socket and activate tokens; use 0660 (the socket's group) or 0600"
                    )
                }
            },
            {
                switch (tls.certificateFile, tls.keyFile) {
                case (nil, .some), (.some, nil):
                    throw ConfigurationError.secretMissing(
                        "\(ConfigKeys.serviceTLSCertFile) and \(ConfigKeys.serviceTLSKeyFile) go together; set both or neither"
                    )
                default:
                    if tls.clientCAFile != nil && tls.certificateFile == nil {
                        throw ConfigurationError.secretMissing(
                            "\(ConfigKeys.serviceTLSClientCAFile) (mutual TLS) needs \(ConfigKeys.serviceTLSCertFile) and \(ConfigKeys.serviceTLSKeyFile)"
                        )
                    }
                }
            },
            {
                if let path = tls.certificateFile {
                    try Self.expectPEM(
                        path, key: ConfigKeys.serviceTLSCertFile, label: "CERTIFICATE", kind: "a certificate")
                }
            },
            {
                if let path = tls.keyFile {
                    try Self.expectPEM(
                        path, key: ConfigKeys.serviceTLSKeyFile, label: "PRIVATE KEY", kind: "a private key")
                    try SecretFile.checkPrivate(path, key: ConfigKeys.serviceTLSKeyFile)
                }
            },
            {
                if let path = tls.clientCAFile {
                    try Self.expectPEM(
                        path, key: ConfigKeys.serviceTLSClientCAFile, label: "CERTIFICATE", kind: "certificates")
                }
            },
            {
                if let path = bearerTokenFile {
                    guard
                        try SecretFile.secret(
                            file: path, key: ConfigKeys.serviceBearerTokenFile, variable: "", environment: [:]) != nil
                    else {
                        throw ConfigurationError.fileInvalid(
                            key: ConfigKeys.serviceBearerTokenFile, path: path,
                            expected: "the bearer token, not an empty file")
                    }
                }
            },
        ]
    }

    /// The socket's directory exists, or its parent does (serve makes the directory itself).
    static func checkSocketDirectory(_ socket: String) throws {
        guard let slash = socket.lastIndex(of: "/"), slash != socket.startIndex else { return }
        let directory = String(socket[..<slash])
        var info = stat()
        if stat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw ConfigurationError.unusableValue(key: ConfigKeys.serviceSocket, "\(directory) is not a directory")
            }
            return
        }
        guard let parentSlash = directory.lastIndex(of: "/"), parentSlash != directory.startIndex else { return }
        let parent = String(directory[..<parentSlash])
        guard stat(parent, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw ConfigurationError.unusableValue(
                key: ConfigKeys.serviceSocket, "\(socket) cannot be made: \(parent) does not exist")
        }
    }

    private static func expectPEM(_ path: String, key: String, label: String, kind: String) throws {
        let contents = try SecretFile.read(path, key: key, limit: 1 << 20, isSecret: false)
        guard contents.contains("-----BEGIN "), contents.contains(label + "-----") else {
            throw ConfigurationError.fileInvalid(key: key, path: path, expected: "PEM holding \(kind)")
        }
    }
}

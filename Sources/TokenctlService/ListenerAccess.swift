import ErrorCodes
import HTTPTransport
import NIOSSL
import TokenctlApp
import TokenctlConfiguration

/// Who may use the TCP listeners (DESIGN §8): off loopback, TLS and a client credential
/// (mutual TLS and/or a bearer token) are required, else serve refuses to start (78);
/// loopback without a credential needs none.
public struct ListenerAccess {
    /// TLS for every TCP listener, when `service.tls.cert-file` is set.
    let tls: TLSConfiguration?
    /// The bearer token every request but the health checks presents over TCP.
    let bearerToken: [UInt8]?

    init(settings: ServiceSettings, listen: [ListenAddress], environment: [String: String]) throws {
        let remote = listen.filter { !$0.isLoopback }
        let tlsFiles = (settings.tls.certificateFile, settings.tls.keyFile)
        // The checks `tokenctl config check` runs (the unit's ExecStartPre), the first failure
        // named with its key and file.
        for check in settings.checks { try check() }
        if let address = remote.first {
            guard tlsFiles.0 != nil else {
                throw ConfigurationError.secretMissing(
                    "--listen \(address.display) is not loopback: set service.tls.cert-file and service.tls.key-file, or listen on 127.0.0.1"
                )
            }
            guard settings.tls.clientCAFile != nil || settings.bearerTokenFile != nil else {
                throw ConfigurationError.secretMissing(
                    "--listen \(address.display) is not loopback: clients must authenticate; set service.tls.client-ca-file (mutual TLS) or service.auth.bearer-token-file"
                )
            }
        }
        if let token = settings.bearerTokenFile {
            guard
                let value = try SecretFile.secret(
                    file: token, key: "service.auth.bearer-token-file", variable: "", environment: [:])
            else {
                throw ConfigurationError.secretMissing("service.auth.bearer-token-file names an empty file")
            }
            bearerToken = Array(value.utf8)
        } else {
            bearerToken = nil
        }
        tls = try Self.tlsConfiguration(settings)
    }

    /// The TCP listeners' TLS as `serve` loads it, nil without `service.tls.cert-file`: the
    /// certificate and key loaded and made into a context once, so that a key that does not
    /// fit its certificate is a configuration error (78) now, in `tokenctl config check` too,
    /// not a failure of the first listener.
    public static func tlsConfiguration(_ settings: ServiceSettings) throws -> TLSConfiguration? {
        guard let certificate = settings.tls.certificateFile, let key = settings.tls.keyFile else { return nil }
        do {
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
            )
            configuration.minimumTLSVersion = .tlsv12
            if let clientCA = settings.tls.clientCAFile {
                configuration.trustRoots = .file(clientCA)
                configuration.certificateVerification = .noHostnameVerification
            }
            _ = try NIOSSLContext(configuration: configuration)
            return configuration
        } catch {
            throw ConfigurationError.tlsFiles(
                server: "the service's TCP listener",
                detail:
                    "service.tls.key-file (\(key)) and service.tls.cert-file (\(certificate)) cannot be used together: the key does not match the certificate, or one of them is not usable (\(error))"
            )
        }
    }
}

import ErrorCodes
import HTTPTransport
import NIOSSL
import TokenctlApp

/// Who may use the TCP listeners (DESIGN §8): off loopback, TLS and a client credential
/// (mutual TLS and/or a bearer token) are required, else serve refuses to start (78);
/// loopback without a credential needs none.
struct ListenerAccess {
    /// TLS for every TCP listener, when `service.tls.cert-file` is set.
    let tls: TLSConfiguration?
    /// The bearer token every request but the health checks presents over TCP.
    let bearerToken: [UInt8]?

    init(settings: ServiceSettings, listen: [ListenAddress], environment: [String: String]) throws {
        let remote = listen.filter { !$0.isLoopback }
        let tlsFiles = (settings.tls.certificateFile, settings.tls.keyFile)
        if tlsFiles.0 == nil && tlsFiles.1 != nil || tlsFiles.0 != nil && tlsFiles.1 == nil {
            throw ConfigurationError.secretMissing("service.tls.cert-file and service.tls.key-file go together; set both or neither")
        }
        if settings.tls.clientCAFile != nil && tlsFiles.0 == nil {
            throw ConfigurationError.secretMissing("service.tls.client-ca-file (mutual TLS) needs service.tls.cert-file and service.tls.key-file")
        }
        if let address = remote.first {
            guard tlsFiles.0 != nil else {
                throw ConfigurationError.secretMissing("--listen \(address.host):\(address.port) is not loopback: set service.tls.cert-file and service.tls.key-file, or listen on 127.0.0.1")
            }
            guard settings.tls.clientCAFile != nil || settings.bearerTokenFile != nil else {
                throw ConfigurationError.secretMissing("--listen \(address.host):\(address.port) is not loopback: clients must authenticate; set service.tls.client-ca-file (mutual TLS) or service.auth.bearer-token-file")
            }
        }
        if let token = settings.bearerTokenFile {
            guard let value = try SecretFile.secret(file: token, key: "service.auth.bearer-token-file", variable: "", environment: [:]) else {
                throw ConfigurationError.secretMissing("service.auth.bearer-token-file names an empty file")
            }
            bearerToken = Array(value.utf8)
        } else {
            bearerToken = nil
        }
        if let certificate = tlsFiles.0, let key = tlsFiles.1 {
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
                tls = configuration
            } catch {
                throw ConfigurationError.tlsFiles(server: "the service's TCP listener (service.tls.*)", detail: "\(error)")
            }
        } else {
            tls = nil
        }
    }
}

import TokenctlConfiguration
import TokenctlService

/// What `tokenctl config check` asks of the service's TLS beyond the files' shapes: the
/// certificate and key loaded as `serve` loads them, so that a key that does not fit its
/// certificate is refused there too (78 `config.tlsFiles`).
public enum ServiceTLSCheck {
    public static func check(_ settings: ServiceSettings) throws {
        _ = try ListenerAccess.tlsConfiguration(settings)
    }
}

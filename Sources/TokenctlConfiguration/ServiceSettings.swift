/// How `tokenctl serve` listens and admits requests (`service.*`, DESIGN §8).
public struct ServiceSettings: Sendable, Equatable {
    /// The TLS files of a TCP listener (`service.tls.*`).
    public struct TLS: Sendable, Equatable {
        public var certificateFile: String?
        public var keyFile: String?
        /// Clients must present a certificate this CA issued (mutual TLS).
        public var clientCAFile: String?

        public init(certificateFile: String? = nil, keyFile: String? = nil, clientCAFile: String? = nil) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.clientCAFile = clientCAFile
        }
    }

    /// The Unix socket (`service.socket`).
    public var socket: String
    /// Its permission bits (`service.socket-mode`, octal in the file).
    public var socketMode: UInt16 = 0o660
    /// Activations that run at once (`service.max-in-flight`).
    public var maxInFlight = 64
    /// Requests that may wait beyond those; more are refused with 503 (`service.queue-limit`).
    public var queueLimit = 1024
    /// How long an Idempotency-Key's answer is kept (`service.idempotency-retention-hours`).
    public var idempotencyRetentionHours = 24
    /// Client connections served at once (`service.max-connections`); more wait in the
    /// kernel's backlog.
    public var maxConnections = 1024
    /// How long a request's head may take to arrive once its first byte has
    /// (`service.header-timeout-ms`).
    public var headerTimeoutMilliseconds = 10_000
    /// How long a connection may stay idle between requests (`service.idle-timeout-ms`).
    public var idleTimeoutMilliseconds = 60_000
    public var tls = TLS()
    /// The file holding the bearer token TCP clients must present (`service.auth.bearer-token-file`).
    public var bearerTokenFile: String?

    public init(socket: String) {
        self.socket = socket
    }

    /// `$XDG_RUNTIME_DIR/tokenctl/tokenctl.sock`, else `/run/tokenctl/tokenctl.sock`.
    public static func defaultSocket(environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return runtime + "/tokenctl/tokenctl.sock"
        }
        return "/run/tokenctl/tokenctl.sock"
    }
}

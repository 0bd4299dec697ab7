import HTTPTransport

/// How to reach TMP (`tmp.*`).
public struct TMPSettings: Sendable, Equatable {
    public struct Retry: Sendable, Equatable {
        public var attempts: Int
        public var backoffMilliseconds: [Int]

        public init(attempts: Int, backoffMilliseconds: [Int]) {
            self.attempts = attempts
            self.backoffMilliseconds = backoffMilliseconds
        }

        /// The wait before try number `attempt + 1` (attempts count from 1); the last
        /// configured wait repeats.
        public func backoff(after attempt: Int) -> Duration {
            guard let last = backoffMilliseconds.last else { return .zero }
            return .milliseconds(attempt - 1 < backoffMilliseconds.count ? backoffMilliseconds[attempt - 1] : last)
        }
    }

    public struct Authentication: Sendable, Equatable {
        public var bearerTokenFile: String?
        public var apiKeyHeader: String?
        public var apiKeyFile: String?

        public init(bearerTokenFile: String? = nil, apiKeyHeader: String? = nil, apiKeyFile: String? = nil) {
            self.bearerTokenFile = bearerTokenFile
            self.apiKeyHeader = apiKeyHeader
            self.apiKeyFile = apiKeyFile
        }
    }

    /// `tmp.transport`'s values. The key no longer chooses anything: every transfer runs on
    /// the process's one transport thread. Both of its former values are still accepted, so
    /// that a configuration written for them loads (`config check` says it can go).
    public enum Transport: String, Sendable, Equatable {
        case easy
        case multi
    }

    public var baseURL: String
    /// `tmp.transport` when configured, which has no effect.
    public var transport: Transport?
    public var connectTimeoutMilliseconds: Int
    public var timeoutMilliseconds: Int
    public var retry: Retry
    public var authentication: Authentication
    public var tls: TLSFiles
    /// The most kept-alive TMP connections a resident service holds (`tmp.max-connections`).
    public var maxConnections = 32
    /// A kept-alive connection idle this long is closed (`tmp.idle-timeout-ms`).
    public var idleTimeoutMilliseconds = 60_000

    public init(
        baseURL: String, connectTimeoutMilliseconds: Int, timeoutMilliseconds: Int, retry: Retry,
        authentication: Authentication, tls: TLSFiles
    ) {
        self.baseURL = baseURL
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.timeoutMilliseconds = timeoutMilliseconds
        self.retry = retry
        self.authentication = authentication
        self.tls = tls
    }

    /// The longest one activation's request may take: every try at its timeout, and the
    /// pauses between them.
    public var longestAttemptMilliseconds: Int {
        let pauses = (1..<max(1, retry.attempts)).reduce(Duration.zero) { $0 + retry.backoff(after: $1) }
        return timeoutMilliseconds * retry.attempts
            + Int(pauses.components.seconds * 1000 + pauses.components.attoseconds / 1_000_000_000_000_000)
    }

    /// Base URL, timeouts and TLS files as one value.
    public var connection: ConnectionSettings {
        ConnectionSettings(
            baseURL: baseURL, connectTimeoutMilliseconds: connectTimeoutMilliseconds,
            timeoutMilliseconds: timeoutMilliseconds, tls: tls)
    }
}

extension TMPSettings {
    /// The configuration keys of TMP's credentials, and the variables that may hold them.
    public enum Keys {
        public static let bearerTokenFile = "tmp.auth.bearer-token-file"
        public static let apiKeyHeader = "tmp.auth.api-key-header"
        public static let apiKeyFile = "tmp.auth.api-key-file"
        public static let bearerTokenVariable = "TOKENCTL_TMP_BEARER_TOKEN"
        public static let apiKeyVariable = "TOKENCTL_TMP_API_KEY"
    }
}

import ErrorCodes
import HTTPTransport
import Logging
import OnboardingCore
import TokenActivation

/// What `tokenctl config check` verifies beyond loading the configuration: for each server,
/// what a command would check before its first request (https unless loopback, TLS files
/// that parse, secret files that are private and non-empty), all of them at once.
public enum ConfigCheck {
    public struct Result: Sendable {
        /// `tmp`, `onboarding`, `powerauth` or `login`.
        public let part: String
        /// What was found, when the check passed.
        public let detail: String
        public let error: ConfigurationError?
    }

    public static func run(_ settings: Settings, environment: [String: String]) -> [Result] {
        [
            result("tmp") { () throws(ConfigurationError) -> String in
                let headers = try TMPCredentials.headers(settings.tmp, environment: environment)
                let authentication = headers.isEmpty ? "no authentication" : headers.map { $0.name == "Authorization" ? "bearer token" : "API key header \($0.name)" }.joined(separator: ", ")
                return "\(settings.tmp.baseURL), \(authentication)"
            },
            result("onboarding") { () throws(ConfigurationError) -> String in
                try settings.onboarding.connection.check(keyPrefix: OnboardingSettings.Keys.prefix)
                return settings.onboarding.connection.baseURL
            },
            result("powerauth") { () throws(ConfigurationError) -> String in
                let powerAuth = settings.onboarding.powerAuth
                guard powerAuth != OnboardingSettings.PowerAuth() || environment[ConfigKeys.Secret.powerAuthApplicationSecret.variable] != nil else {
                    return "not configured (device and onboarding activate need it)"
                }
                let resolved = try settings.deviceService(environment: environment, logger: Logger(label: "tokenctl.config")).powerAuthSettings()
                return "\(resolved.baseURL), application key and secret set"
            },
            result("login") { () throws(ConfigurationError) -> String in
                try settings.login.checkConnection()
                return "\(settings.login.connection.baseURL), client \(settings.login.clientID)"
            },
        ]
    }

    private static func result(_ part: String, _ check: () throws(ConfigurationError) -> String) -> Result {
        do {
            return Result(part: part, detail: try check(), error: nil)
        } catch {
            return Result(part: part, detail: "", error: error)
        }
    }
}

import ErrorCodes
import Foundation
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
                try notPlaceholder(ConfigKeys.tmpBaseURL, settings.tmp.baseURL)
                let headers = try TMPCredentials.headers(settings.tmp, environment: environment)
                let authentication = headers.isEmpty ? "no authentication" : headers.map { $0.name == "Authorization" ? "bearer token" : "API key header \($0.name)" }.joined(separator: ", ")
                return "\(settings.tmp.baseURL), \(authentication)"
            },
            result("onboarding") { () throws(ConfigurationError) -> String in
                try notPlaceholder(ConfigKeys.onboardingBaseURL, settings.onboarding.connection.baseURL)
                try settings.onboarding.connection.check(keyPrefix: OnboardingSettings.Keys.prefix)
                return settings.onboarding.connection.baseURL
            },
            result("powerauth") { () throws(ConfigurationError) -> String in
                let powerAuth = settings.onboarding.powerAuth
                guard powerAuth != OnboardingSettings.PowerAuth() || environment[ConfigKeys.Secret.powerAuthApplicationSecret.variable] != nil else {
                    return "not configured (device and onboarding activate need it)"
                }
                try notPlaceholder(ConfigKeys.powerAuthBaseURL, powerAuth.baseURL)
                let resolved = try settings.deviceService(environment: environment, logger: Logger(label: "tokenctl.config")).powerAuthSettings()
                return "\(resolved.baseURL), application key and secret set"
            },
            result("login") { () throws(ConfigurationError) -> String in
                try notPlaceholder(ConfigKeys.loginBackendURL, settings.login.connection.baseURL)
                try notPlaceholder(ConfigKeys.loginRelyingPartyURL, settings.login.relyingPartyURL)
                try settings.login.checkConnection()
                return "\(settings.login.connection.baseURL), client \(settings.login.clientID)"
            },
        ]
    }

    /// A URL whose host is a name reserved for examples (RFC 2606: `example.com`, `.invalid`,
    /// …), as the shipped configuration's placeholders are, is not a server to use.
    static func notPlaceholder(_ key: String, _ url: String?) throws(ConfigurationError) {
        guard let url, let host = URLComponents(string: url)?.host?.lowercased() else { return }
        let reserved = ["example.com", "example.net", "example.org", "example", "invalid"]
        if reserved.contains(where: { host == $0 || host.hasSuffix("." + $0) }) {
            throw .placeholder(key: key, value: url)
        }
    }

    private static func result(_ part: String, _ check: () throws(ConfigurationError) -> String) -> Result {
        do {
            return Result(part: part, detail: try check(), error: nil)
        } catch {
            return Result(part: part, detail: "", error: error)
        }
    }
}

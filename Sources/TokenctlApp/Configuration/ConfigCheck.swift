import ErrorCodes
import Foundation
import HTTPTransport
import Logging
import OnboardingCore
import Storage
import TokenActivation
import TokenctlConfiguration

/// What `tokenctl config check` verifies beyond loading the configuration: for each server,
/// what a command would check before its first request (https unless loopback, TLS files
/// that parse, secret files that are private and non-empty), all of them at once.
public enum ConfigCheck {
    public struct Result: Sendable {
        /// `tmp`, `onboarding`, `powerauth`, `login`, `service`, `audit` or `database`.
        public let part: String
        /// What was found, when the checks passed.
        public let detail: String
        /// Every problem found, each check of the part run on its own (a private secret file
        /// is checked even when the address beside it is refused).
        public let errors: [any CodedError]
        /// Why activations (the CLI's and the service's) do not use this part, when they do
        /// not: its problems are then warnings for the commands that use it, not failures.
        public var unusedBecause: String? = nil

        /// The problems that make the configuration unusable.
        public var failures: [any CodedError] { unusedBecause == nil ? errors : [] }
    }

    /// - Returns: a result per part; the onboarding, PowerAuth and login parts are marked
    ///   unused unless a gate needs them (an issuer who only activates tokens).
    public static func run(
        _ settings: Settings, environment: [String: String], serviceChecks: [() throws -> Void] = []
    ) -> [Result] {
        let tmp = settings.tmp, onboarding = settings.onboarding.connection, login = settings.login
        let gates = settings.onboarding
        let unusedOnboarding =
            gates.requiresFinishedUserActivation
            ? nil
            : "no gate needs it (onboarding.require-finished-user-activation is false); the onboarding, device and verification commands do"
        let unusedLogin =
            gates.pinLoginWithinSeconds != nil
            ? nil : "no gate needs it (onboarding.require-pin-login-within-seconds is null); the login commands do"
        // Made apart from the list below, which the type checker reads whole.
        let allServiceChecks: [() throws -> Void] = settings.service.checks + serviceChecks
        let witnessChecks: [() throws -> Void] = Self.witnessChecks(settings.audit.witnesses)
        var results: [Result] = [
            part(
                "tmp",
                [{ try notPlaceholder(ConfigKeys.tmpBaseURL, tmp.baseURL) }] + tmp.connection.checks(keyPrefix: "tmp")
            ) {
                let headers = try TMPCredentials.secretHeaders(tmp, environment: environment)
                let authentication =
                    headers.isEmpty
                    ? "no authentication"
                    : headers.map { $0.name == "Authorization" ? "bearer token" : "API key header \($0.name)" }.joined(
                        separator: ", ")
                let transport =
                    tmp.transport == nil
                    ? ""
                    : "; \(ConfigKeys.tmpTransport) has no effect (every request runs on the one transport thread) and can be removed"
                return "\(tmp.baseURL), \(authentication)\(transport)"
            },
            part(
                "onboarding",
                [{ try notPlaceholder(ConfigKeys.onboardingBaseURL, onboarding.baseURL) }]
                    + onboarding.checks(keyPrefix: OnboardingSettings.Keys.prefix)
            ) { onboarding.baseURL },
            part("powerauth", []) {
                let powerAuth = settings.onboarding.powerAuth
                guard
                    powerAuth != OnboardingSettings.PowerAuth()
                        || environment[ConfigKeys.Secret.powerAuthApplicationSecret.variable] != nil
                else {
                    return "not configured (device and onboarding activate need it)"
                }
                try notPlaceholder(ConfigKeys.powerAuthBaseURL, powerAuth.baseURL)
                let resolved = try settings.deviceService(
                    environment: environment, logger: Logger(label: "tokenctl.config")
                ).powerAuthSettings()
                return "\(resolved.baseURL), application key and secret set"
            },
            part(
                "login",
                [
                    { try notPlaceholder(ConfigKeys.loginBackendURL, login.connection.baseURL) },
                    { try notPlaceholder(ConfigKeys.loginRelyingPartyURL, login.relyingPartyURL) },
                    {
                        try ConnectionSettings.checkTransportSecurity(
                            login.relyingPartyURL, key: ConfigKeys.loginRelyingPartyURL)
                    },
                ] + login.connection.checks(keyPrefix: LoginSettings.Keys.prefix, urlKey: ConfigKeys.loginBackendURL)
            ) {
                "\(login.connection.baseURL), client \(login.clientID)"
            },
            part("service", allServiceChecks) {
                let service = settings.service
                var detail = "socket \(service.socket), mode 0\(String(service.socketMode, radix: 8))"
                if service.tls.certificateFile != nil {
                    detail += ", TLS" + (service.tls.clientCAFile != nil ? " with client certificates" : "")
                }
                if service.bearerTokenFile != nil { detail += ", bearer token" }
                return detail
            },
            part("audit", witnessChecks) {
                guard settings.audit.origin != nil || settings.audit.signingKeyFile != nil else {
                    return "no checkpoints signed (audit.origin is not set)"
                }
                let (origin, signer) = try settings.audit.signer()
                let count = settings.audit.witnesses.count
                let witnesses: String = count == 0 ? "" : ", \(count) witness" + (count == 1 ? "" : "es")
                return
                    "log \(origin), signing key \(signer.keyID), a checkpoint every \(settings.audit.checkpointIntervalSeconds) s in the service"
                    + witnesses
            },
            part("database", []) {
                if let postgres = settings.postgres {
                    if let problem = postgres.passwordProblem { throw problem }
                    try TLSFiles(caFile: postgres.caFile).check(keyPrefix: "database.tls")
                    return
                        "PostgreSQL \(postgres.displayURL), host id \(postgres.hostID), lease \(postgres.leaseMilliseconds) ms"
                }
                let exists = try Store.checkLocation(settings.database)
                return "SQLite \(settings.database.path)" + (exists ? "" : " (created at first use)")
            },
        ]
        for index in results.indices {
            switch results[index].part {
            case "onboarding", "powerauth": results[index].unusedBecause = unusedOnboarding
            case "login": results[index].unusedBecause = unusedLogin
            default: break
            }
        }
        return results
    }

    /// Each witness's URL as a server's: https off loopback, not a placeholder, not named twice.
    static func witnessChecks(_ witnesses: [AuditSettings.WitnessSetting]) -> [() throws -> Void] {
        let key = ConfigKeys.auditWitnesses
        var checks: [() throws -> Void] = []
        for witness in witnesses {
            checks.append { try ConnectionSettings.checkTransportSecurity(witness.url, key: key) }
            checks.append { try notPlaceholder(key, witness.url) }
        }
        let urls = witnesses.map { $0.url.lowercased() }
        if let repeated = urls.first(where: { url in urls.filter { $0 == url }.count > 1 }) {
            checks.append {
                throw ConfigurationError.invalidValue(
                    key: key, origin: .environment,
                    expected: "a list naming each witness once (\(repeated) is named twice)")
            }
        }
        return checks
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

    /// Runs every check of a part, then `detail` (a check too); the part passes when none
    /// failed.
    private static func part(_ name: String, _ checks: [() throws -> Void], detail: () throws -> String) -> Result {
        var errors: [any CodedError] = []
        func record(_ error: any Error) {
            errors.append(
                error as? any CodedError
                    ?? ConfigurationError.invalidValue(key: name, origin: .environment, expected: "\(error)"))
        }
        for check in checks {
            do { try check() } catch { record(error) }
        }
        var found = ""
        do { found = try detail() } catch { record(error) }
        return Result(part: name, detail: errors.isEmpty ? found : "", errors: errors)
    }
}

import Foundation

/// Configuration files tokenctl writes for others to read with `--config`.
public enum ClientConfiguration {
    /// A client configuration pointing every server key at the sandbox at `baseURL`, with the
    /// sandbox's PowerAuth application: the keys are the configuration's own, nested as the
    /// file format nests them.
    public static func sandbox(
        baseURL: String, applicationKey: String, applicationSecretFile: String, masterServerPublicKey: String
    ) throws -> Data {
        try file([
            ConfigKeys.tmpBaseURL: baseURL,
            ConfigKeys.loginBackendURL: baseURL,
            ConfigKeys.loginRelyingPartyURL: baseURL + "/rp",
            ConfigKeys.onboardingBaseURL: baseURL,
            ConfigKeys.powerAuthApplicationKey: applicationKey,
            ConfigKeys.powerAuthApplicationSecretFile: applicationSecretFile,
            ConfigKeys.powerAuthMasterServerPublicKey: masterServerPublicKey,
        ])
    }

    /// The JSON of a configuration file setting `values` (dotted keys, each one tokenctl reads).
    static func file(_ values: [String: String]) throws -> Data {
        var root: [String: Any] = [:]
        for (key, value) in values {
            precondition(ConfigKeys.all.contains(key), "\(key) is not a configuration key")
            set(value, at: key.split(separator: ".").map(String.init)[...], in: &root)
        }
        return try JSONSerialization.data(
            withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    private static func set(_ value: String, at path: ArraySlice<String>, in object: inout [String: Any]) {
        guard let first = path.first else { return }
        if path.count == 1 {
            object[first] = value
            return
        }
        var child = object[first] as? [String: Any] ?? [:]
        set(value, at: path.dropFirst(), in: &child)
        object[first] = child
    }
}

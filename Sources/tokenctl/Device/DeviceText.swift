import OnboardingCore
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

/// Text and JSON shapes of the device commands. Keys are never printed.
enum DeviceText {
    static func json(_ activation: DeviceActivation) -> JSONObject {
        JSONObject([
            "instanceId": .string(activation.instanceID),
            "activationId": .string(activation.activationID),
            "name": .string(activation.name),
            "createdAt": .string(activation.createdAt),
            "fingerprint": .string(activation.fingerprint),
            "counter": .int(Int(activation.counter)),
            "token": activation.token.map { .string($0.id) } ?? .null,
        ])
    }

    static func lines(_ activation: DeviceActivation) -> [String] {
        [
            "instance      \(activation.instanceID)",
            "activation    \(activation.activationID)",
            "name          \(activation.name)",
            "created       \(activation.createdAt)",
            "fingerprint   \(activation.fingerprint)",
            "signatures    \(activation.counter)",
            "token         \(activation.token?.id ?? "none")",
        ]
    }

    static func json(_ status: PowerAuthClient.Status) -> JSONObject {
        JSONObject([
            "activationId": .string(status.activationID),
            "state": .string(status.state),
            "flags": .array(status.flags.map { .string($0) }),
            "failedAttempts": .int(Int(status.blob.failedAttempts)),
            "maxFailedAttempts": .int(Int(status.blob.maxFailedAttempts)),
            "counterDistance": status.counterDistance.map { .int($0) } ?? .null,
            "currentVersion": .int(Int(status.blob.currentVersion)),
            "upgradeVersion": .int(Int(status.blob.upgradeVersion)),
            "fingerprint": .string(status.fingerprint),
        ])
    }

    static func lines(_ status: PowerAuthClient.Status) -> [String] {
        // A removed activation keeps no counter, and nothing signs with it again.
        guard status.state != "REMOVED" else {
            return [
                "activation    \(status.activationID)",
                "state         REMOVED (the server removed this device activation; it cannot sign again)",
                "fingerprint   \(status.fingerprint)",
                "next          \(NextStepText.command(.removeDeviceLocallyAndOnboard))",
            ]
        }
        return [
            "activation    \(status.activationID)",
            "state         \(status.state)",
            "flags         \(status.flags.isEmpty ? "none" : status.flags.joined(separator: ", "))",
            "failed        \(status.blob.failedAttempts) of \(status.blob.maxFailedAttempts)",
            "counter       "
                + (status.counterDistance.map { $0 == 0 ? "in step with the server" : "server \($0) ahead" }
                    ?? "the server is behind this device (a failed or lost signature); the next valid signature catches it up"),
            "fingerprint   \(status.fingerprint)",
        ]
    }
}

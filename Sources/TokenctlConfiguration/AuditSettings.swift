import WalletModel

/// The audit as a transparency log (`audit.*`, DESIGN §9): the log's name and the key that
/// signs its checkpoints.
public struct AuditSettings: Sendable, Equatable {
    public enum Keys {
        public static let origin = "audit.origin"
        public static let signingKeyFile = "audit.signing-key-file"
        public static let checkpointInterval = "audit.checkpoint-interval-seconds"
    }

    /// The log's name, the first line of its checkpoints (`bank.example/tokenctl-audit`).
    public var origin: String?
    /// The signed-note private key (`tokenctl audit key generate`): a secret, owner-only.
    public var signingKeyFile: String?
    /// How often the service signs a checkpoint when the tree grew.
    public var checkpointIntervalSeconds = 60

    public init(origin: String? = nil, signingKeyFile: String? = nil, checkpointIntervalSeconds: Int = 60) {
        self.origin = origin
        self.signingKeyFile = signingKeyFile
        self.checkpointIntervalSeconds = checkpointIntervalSeconds
    }

    /// Whether `name` can be a log's origin: what a signed note's key name may be (no
    /// spaces, no `+`), as `audit key generate` and `audit.origin` require.
    public static func isValidOrigin(_ name: String) -> Bool {
        NoteKey.isValidName(name)
    }
}

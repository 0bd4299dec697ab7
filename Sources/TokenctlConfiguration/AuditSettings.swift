import WalletModel

/// The audit as a transparency log (`audit.*`, DESIGN §9): the log's name and the key that
/// signs its checkpoints.
public struct AuditSettings: Sendable, Equatable {
    public enum Keys {
        public static let origin = "audit.origin"
        public static let signingKeyFile = "audit.signing-key-file"
        public static let checkpointInterval = "audit.checkpoint-interval-seconds"
        public static let witnesses = "audit.witnesses"
    }

    /// A witness the log publishes its checkpoints to (C2SP tlog-witness).
    public struct WitnessSetting: Sendable, Equatable {
        /// The witness's submission prefix (`POST URL/add-checkpoint`).
        public var url: String
        /// The witness's cosigner key (`NAME+HASH+KEY`, algorithm 0x04).
        public var verifierKey: String

        public init(url: String, verifierKey: String) {
            self.url = url
            self.verifierKey = verifierKey
        }
    }

    /// The log's name, the first line of its checkpoints (`bank.example/tokenctl-audit`).
    public var origin: String?
    /// The signed-note private key (`tokenctl audit key generate`): a secret, owner-only.
    public var signingKeyFile: String?
    /// How often the service signs a checkpoint when the tree grew.
    public var checkpointIntervalSeconds = 60
    /// Where `audit checkpoint --publish` and the service send each checkpoint.
    public var witnesses: [WitnessSetting] = []

    public init(origin: String? = nil, signingKeyFile: String? = nil, checkpointIntervalSeconds: Int = 60, witnesses: [WitnessSetting] = []) {
        self.origin = origin
        self.signingKeyFile = signingKeyFile
        self.checkpointIntervalSeconds = checkpointIntervalSeconds
        self.witnesses = witnesses
    }

    /// Whether `name` can be a log's origin: what a signed note's key name may be (no
    /// spaces, no `+`), as `audit key generate` and `audit.origin` require.
    public static func isValidOrigin(_ name: String) -> Bool {
        NoteKey.isValidName(name)
    }

    /// Whether `text` is a witness's cosigner verifier key (`NAME+HASH+KEY`, Ed25519, 0x04).
    public static func isValidWitnessKey(_ text: String) -> Bool {
        (try? Cosignature.Verifier(verifierKey: text)) != nil
    }
}

import TransparencyLog
import WalletModel

/// The audit as a transparency log (`audit.*`, DESIGN §9): the log's name and the key that
/// signs its checkpoints.
public struct AuditSettings: Sendable, Equatable {
    public enum Keys {
        public static let origin = "audit.origin"
        public static let signingKeyFile = "audit.signing-key-file"
        public static let checkpointInterval = "audit.checkpoint-interval-seconds"
        public static let witnesses = "audit.witnesses"
        public static let witnessTimeout = "audit.witness-timeout-ms"
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
    /// How long one witness may take to answer one request (connecting included); the
    /// witnesses are asked side by side.
    public var witnessTimeoutMilliseconds = 10_000

    public init(
        origin: String? = nil, signingKeyFile: String? = nil, checkpointIntervalSeconds: Int = 60,
        witnesses: [WitnessSetting] = [],
        witnessTimeoutMilliseconds: Int = 10_000
    ) {
        self.origin = origin
        self.signingKeyFile = signingKeyFile
        self.checkpointIntervalSeconds = checkpointIntervalSeconds
        self.witnesses = witnesses
        self.witnessTimeoutMilliseconds = witnessTimeoutMilliseconds
    }

    /// The longest origin, in bytes (a witness keeps it as a key; C2SP tlog-witness's
    /// implementations bound it).
    public static let maximumOriginBytes = 255

    /// Whether `name` can be a log's origin: what a signed note's key name may be (no
    /// spaces, no `+`), at most 255 bytes, without control or format characters (a
    /// right-to-left override would show a reader another name than the one signed), as
    /// `audit key generate` and `audit.origin` require.
    public static func isValidOrigin(_ name: String) -> Bool {
        NoteKey.isValidName(name) && name.utf8.count <= maximumOriginBytes
            && !name.unicodeScalars.contains {
                [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
            }
    }

    /// Whether `text` is a witness's cosigner verifier key (`NAME+HASH+KEY`, Ed25519, 0x04).
    public static func isValidWitnessKey(_ text: String) -> Bool {
        (try? Cosignature.Verifier(verifierKey: text)) != nil
    }
}

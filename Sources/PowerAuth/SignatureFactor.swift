/// The factors a PowerAuth signature combines, in the wire spelling of `pa_signature_type`.
public enum SignatureFactor: String, CaseIterable, Sendable, Codable {
    case possession
    case knowledge
    case biometry
    case possessionKnowledge = "possession_knowledge"
    case possessionBiometry = "possession_biometry"
    case possessionKnowledgeBiometry = "possession_knowledge_biometry"

    public enum Key: Sendable { case possession, knowledge, biometry }

    /// The keys used, in signing order.
    public var keys: [Key] {
        switch self {
        case .possession: return [.possession]
        case .knowledge: return [.knowledge]
        case .biometry: return [.biometry]
        case .possessionKnowledge: return [.possession, .knowledge]
        case .possessionBiometry: return [.possession, .biometry]
        case .possessionKnowledgeBiometry: return [.possession, .knowledge, .biometry]
        }
    }

    /// Whether a failed check counts against the activation's failed attempts
    /// (everything but possession alone).
    public var countsFailedAttempts: Bool { self != .possession }
}

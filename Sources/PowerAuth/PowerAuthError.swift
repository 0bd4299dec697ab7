/// Why a PowerAuth computation refused its input. Every case names what was wrong,
/// never the secret values involved.
public enum PowerAuthError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidKey(String)
    case invalidLength(String, expected: Int, actual: Int)
    case invalidBase64(String)
    case macMismatch
    case decryptionFailed
    case staleTimestamp(ageMilliseconds: Int64)
    case replayedNonce
    case malformedPayload(String)
    case malformedHeader(String)
    case unsupportedVersion(String)

    public var description: String {
        switch self {
        case .invalidKey(let what): return "\(what) is not a valid P-256 key"
        case let .invalidLength(what, expected, actual): return "\(what) must be \(expected) bytes, got \(actual)"
        case .invalidBase64(let what): return "\(what) is not valid Base64"
        case .macMismatch: return "the MAC does not match: wrong key, wrong application secret or altered data"
        case .decryptionFailed: return "decryption failed (bad padding or length)"
        case .staleTimestamp(let age): return "the timestamp is outside the accepted window (\(age) ms off)"
        case .replayedNonce: return "the nonce was already used (replayed request)"
        case .malformedPayload(let why): return "malformed encrypted payload: \(why)"
        case .malformedHeader(let why): return "malformed PowerAuth header: \(why)"
        case .unsupportedVersion(let version): return "unsupported PowerAuth protocol version \(version)"
        }
    }
}

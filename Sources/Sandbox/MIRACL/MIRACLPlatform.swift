import Crypto
import Foundation
import HexCoding
import MPin
import PowerAuth
import Synchronization

/// The MIRACL platform as the sandbox simulates it: discovery, the OIDC authorize endpoint
/// that hands out access codes, registration with an e-mailed confirmation link, the two
/// D-TAs (each holding one share of the master secret), the M-Pin passes and an OIDC token
/// endpoint issuing ES256 id_tokens.
///
/// Server side only: it never maps a PIN or builds a client message. It checks pass 2 with
/// the master secret s = s1 + s2 in G1: V + s·(U + y·H(ID)) = O, the equivalent of the
/// pairing check e(V, Q)·e(U + y·H(ID), sQ) = 1.
public final class MIRACLPlatform: Sendable {
    let options: MIRACLOptions
    let log: (@Sendable (String) -> Void)?
    let share1 = Scalar.random()
    let share2 = Scalar.random()
    /// The id_token signing key (kept raw: swift-crypto's key types are not Sendable).
    let signingKeyBytes = P256.Signing.PrivateKey().rawRepresentation
    /// Signs the `params` the first D-TA hands to the second.
    let paramsKeyBytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    let appID = MIRACLPlatform.randomHex(16)
    let state = Mutex(State())

    struct State {
        var identities: [String: MIRACLIdentity] = [:]
        var accessSessions: [String: AccessSession] = [:]
        var passOnes: [String: PassOne] = [:]
        var tickets: [String: AuthTicket] = [:]
        var codes: [String: AuthorizationCode] = [:]
        var nextDefect: IDTokenDefect?
    }

    /// Registration tickets and params live this long.
    static let registrationLifetime: TimeInterval = 3600
    static let paramsLifetime: TimeInterval = 60
    static let accessCodeLifetime: TimeInterval = 300

    public init(options: MIRACLOptions = MIRACLOptions(), log: (@Sendable (String) -> Void)? = nil) {
        self.options = options
        self.log = log
    }

    var signingKey: P256.Signing.PrivateKey { try! P256.Signing.PrivateKey(rawRepresentation: signingKeyBytes) }

    var paramsKey: SymmetricKey { SymmetricKey(data: paramsKeyBytes) }

    /// The public key the relying party trusts for id_tokens.
    var idTokenKey: P256.Signing.PublicKey { signingKey.publicKey }

    // MARK: Inspection and switches (tests, demo)

    /// The confirmation link last e-mailed to `userID`, as the e-mail would carry it.
    public func confirmationLink(userID: String, baseURL: String) -> String? {
        state.withLock { state in
            state.identities.values.filter { $0.userID == userID }.max { $0.expires < $1.expires }
                .map { "\(baseURL)/_sandbox/mpin/confirm?t=\($0.linkToken)" }
        }
    }

    /// Marks the e-mail link of `userID` as used (what opening the link does).
    @discardableResult
    public func confirmEmail(userID: String) -> Bool {
        state.withLock { state in
            guard
                let id = state.identities.values.filter({ $0.userID == userID }).max(by: { $0.expires < $1.expires })?
                    .mpinID
            else { return false }
            state.identities[id]?.active = true
            return true
        }
    }

    /// The next id_token carries `defect`.
    public func injectIDTokenDefect(_ defect: IDTokenDefect) {
        state.withLock { $0.nextDefect = defect }
    }

    /// Whether the platform blocked `userID`'s latest identity.
    public func isBlocked(userID: String) -> Bool {
        state.withLock { state in state.identities.values.contains { $0.userID == userID && $0.blocked } }
    }

    static func randomHex(_ count: Int) -> String {
        Hex.encode(Bytes.random(count))
    }

    static func sha256Hex(_ bytes: some DataProtocol) -> String {
        Hex.encode(SHA256.hash(data: bytes))
    }
}

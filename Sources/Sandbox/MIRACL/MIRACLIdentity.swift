import Foundation
import MPin

/// One registered M-Pin identity on the simulated platform.
struct MIRACLIdentity {
    let mpinID: String
    let userID: String
    let hashed: G1Point
    var regOTT: String
    var expires: Date
    /// The token of the confirmation link last e-mailed.
    var linkToken: String
    /// The e-mail link was used.
    var active = false
    /// Both client-secret shares were handed out.
    var secretIssued = false
    var failures = 0
    var blocked = false
}

/// A login's pass 1: what pass 2 is checked against.
struct PassOne {
    let u: G1Point
    let y: Scalar
}

/// A pass 2 the platform checked, waiting for `authenticate`.
struct AuthTicket {
    let mpinID: String
    let wid: String
    let accepted: Bool
}

/// An access code (the `qrURL` fragment) and the OIDC request it belongs to.
struct AccessSession {
    let clientID: String
    let redirectURI: String
    let nonce: String
    let created: Date
    var userID: String?
    var used = false
}

/// An authorization code waiting to be redeemed at the token endpoint.
struct AuthorizationCode {
    let clientID: String
    let userID: String
    let nonce: String
    let created: Date
}

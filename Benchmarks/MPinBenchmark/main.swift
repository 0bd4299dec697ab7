// The client's M-Pin crypto, as medians over repeated runs (release build):
//   registration: H(ID), CS = CS1 + CS2, token = CS − PIN·H(ID)
//   login:        pass 1 (x random, U = x·H(ID)) and pass 2 (V = −(x+y)·(token + PIN·H(ID)))
// Usage: MPinBenchmark [runs]
import Foundation
import HexCoding
import MPin

let runs = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 200

func median(_ body: () throws -> Void) rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
    }
    samples.sort()
    return samples[samples.count / 2]
}

let mpinID = Hex.encode(
    Array(
        #"{"issuedAt":1489502921,"userID":"alice@example.com","cID":"sandbox","mobile":1,"salt":"c796b6098aa45355","v":1}"#
            .utf8))
let identity = try MPinIdentity(mpinIdHex: mpinID)
let master1 = Scalar.random(), master2 = Scalar.random()
let share1 = master1 * identity.hashed, share2 = master2 * identity.hashed
let pin = try PIN(digits: Array("2468".utf8))
let token = try MPinClientCrypto.token(
    clientSecret: try MPinClientCrypto.clientSecret(share1: share1, share2: share2), pin: pin, identity: identity)
let y = Scalar.random()

let hash = try median { _ = try MPinIdentity(mpinIdHex: mpinID) }
let registration = try median {
    let identity = try MPinIdentity(mpinIdHex: mpinID)
    let secret = try MPinClientCrypto.clientSecret(
        share1: try G1Point(hex: share1.hex!), share2: try G1Point(hex: share2.hex!))
    _ = try MPinClientCrypto.token(clientSecret: secret, pin: pin, identity: identity).hex
}
let pass1 = median { _ = MPinClientCrypto.pass1(identity: identity).u.hex }
let login = median {
    let (u, x) = MPinClientCrypto.pass1(identity: identity)
    _ = u.hex
    _ = MPinClientCrypto.pass2(x: x, y: y, token: token, pin: pin, identity: identity).hex
}
let scalarMultiplication = median { _ = y * identity.hashed }

print("M-Pin client crypto, median of \(runs) runs (ms)        tokenctl   MIRACL C core (published, not run here)")
print(String(format: "  login: pass 1 + pass 2                          %8.3f   ~1", login))
print(String(format: "  pass 1 alone                                    %8.3f", pass1))
print(String(format: "  registration: H(ID), CS1+CS2, token extraction  %8.3f", registration))
print(String(format: "  H(ID) alone                                     %8.3f", hash))
print(String(format: "  one 256-bit scalar multiplication in G1         %8.3f", scalarMultiplication))

import HexCoding
import TestSupport
import Testing

@testable import MPin

/// Golden checks over the recording: the hash to the curve, the share recombination and the PIN
/// mapping must reproduce what a real MIRACL server accepted.
@Suite struct RecordingCryptoTests {
    let recording: MPinRecording

    init() throws {
        recording = try MPinRecording.load()
    }

    func point(_ hex: Any?) throws -> G1Point {
        let text = try #require(hex as? String)
        return try G1Point(hex: text)
    }

    func scalar(_ hex: Any?) throws -> Scalar {
        let text = try #require(hex as? String)
        return try #require(Scalar(hex: text))
    }

    @Test func everyRecordedMPinIdHashesToAPointWithAnEvenY() throws {
        var ids = Set<String>()
        for exchange in recording.exchanges {
            if let id = exchange.responseJSON["mpinId"] as? String { ids.insert(id) }
            if let id = exchange.requestJSON["mpin_id"] as? String { ids.insert(id) }
        }
        var increments = 0
        for id in ids {
            let bytes = try #require(Hex.decode(id))
            let (point, count) = G1Point.hashToCurve(bytes)
            let affine = try #require(point.affine)
            #expect(!affine.y.value.isOdd)
            let encoded = try #require(point.encoded)
            #expect(try G1Point(encoded: encoded) == point)
            increments += count
        }
        #expect(ids.count == 19)
        print("hash to curve: \(ids.count) recorded mpinIds, \(increments) increments in all")
    }

    /// Sessions 39–41 and 44–46 log testUser1 in with PIN 1234: V₁ − V₂ = (y₂ − y₁)·(CS1 + CS2).
    @Test func twoRightPINLoginsDifferByTheChallengeTimesTheClientSecret() throws {
        let secret = try MPinClientCrypto.clientSecret(
            share1: try point(recording[25].responseJSON["clientSecretShare"]),
            share2: try point(recording[26].responseJSON["clientSecret"])
        )
        let v1 = try point(recording[40].requestJSON["V"])
        let v2 = try point(recording[45].requestJSON["V"])
        let y1 = try scalar(recording[39].responseJSON["y"])
        let y2 = try scalar(recording[44].responseJSON["y"])
        #expect(v1 - v2 == (y2 - y1) * secret)
        #expect(v1 - v2 != (y1 - y2) * secret)
    }

    /// Sessions 52–54 (PIN 1111, refused) and 55–57 (PIN 1234, accepted) share U = x·H(ID);
    /// solving them for H(ID) gives the try-and-increment hash of their mpinId.
    @Test func aWrongAndARightLoginSolveToTheHashOfTheirMPinId() throws {
        let secret = try MPinClientCrypto.clientSecret(
            share1: try point(recording[25].responseJSON["clientSecretShare"]),
            share2: try point(recording[26].responseJSON["clientSecret"])
        )
        let u = try point(recording[52].requestJSON["U"])
        #expect(try point(recording[55].requestJSON["U"]) == u)
        let wrongV = try point(recording[53].requestJSON["V"])
        let rightV = try point(recording[56].requestJSON["V"])
        let wrongY = try scalar(recording[52].responseJSON["y"])
        let rightY = try scalar(recording[55].responseJSON["y"])
        // rightV = −(x + y₂)·CS, so x·CS = −rightV − y₂·CS.
        let xTimesSecret = -rightV - rightY * secret
        // wrongV = −(x + y₁)·(CS + δ·H) = −x·CS − y₁·CS − δ·U − δ·y₁·H.
        let delta =
            Scalar(try PIN(digits: Array("1111".utf8)).mapped) - Scalar(try PIN(digits: Array("1234".utf8)).mapped)
        let t = wrongV + xTimesSecret + wrongY * secret + delta * u
        let hashed = try Self.divide(-t, by: delta, wrongY)
        let id = try #require(recording[52].requestJSON["mpin_id"] as? String)
        let identity = try MPinIdentity(mpinIdHex: id)
        #expect(hashed == identity.hashed)
    }

    /// Logins 64, 67 and 70 (PINs 1111, 2222, 3333) share one U. The differences of their V fit
    /// the contract's PIN mapping and none of the other candidates.
    @Test(arguments: PINCandidate.allCases)
    func threeWrongPINLoginsFitOnlyTheContractsMapping(candidate: PINCandidate) throws {
        let secret = try MPinClientCrypto.clientSecret(
            share1: try point(recording[25].responseJSON["clientSecretShare"]),
            share2: try point(recording[26].responseJSON["clientSecret"])
        )
        let id = try #require(recording[64].requestJSON["mpin_id"] as? String)
        let identity = try MPinIdentity(mpinIdHex: id)
        let u = try point(recording[64].requestJSON["U"])
        #expect(try point(recording[67].requestJSON["U"]) == u)
        #expect(try point(recording[70].requestJSON["U"]) == u)
        let sessions = [(64, "1111"), (67, "2222"), (70, "3333")]
        var fits = 0
        for ((a, pinA), (b, pinB)) in zip(sessions, sessions.dropFirst()) {
            let ya = try scalar(recording[a].responseJSON["y"])
            let yb = try scalar(recording[b].responseJSON["y"])
            let da = candidate.map(pinA) - candidate.map("1234")
            let db = candidate.map(pinB) - candidate.map("1234")
            let lhs = try point(recording[a + 1].requestJSON["V"]) - point(recording[b + 1].requestJSON["V"])
            // V = −(x + y)·(CS + d·H) = −x·CS − y·CS − d·U − d·y·H; x·CS cancels in the difference.
            let rhs =
                -((ya - yb) * secret) - (da - db) * u - (Self.product(da, ya) - Self.product(db, yb)) * identity.hashed
            if lhs == rhs { fits += 1 }
        }
        #expect(fits == (candidate == .contract ? 2 : 0))
    }

    @Test func theContractsExampleMapsPIN1234To9442() throws {
        #expect(try PIN(digits: Array("1234".utf8)).mapped == 9442)
        #expect(PIN.map(Array("1234".utf8)) == 9442)
    }

    /// Every user with both shares recorded: the shares are points and their sum is a valid,
    /// finite client secret.
    @Test func everyRecordedPairOfSharesRecombines() throws {
        var pairs = 0
        for (index, exchange) in recording.exchanges.enumerated() {
            guard let share1 = exchange.responseJSON["clientSecretShare"] as? String,
                index + 1 < recording.exchanges.count,
                let share2 = recording[index + 1].responseJSON["clientSecret"] as? String
            else { continue }
            let secret = try MPinClientCrypto.clientSecret(
                share1: try G1Point(hex: share1), share2: try G1Point(hex: share2))
            let encoded = try #require(secret.encoded)
            #expect(try G1Point(encoded: encoded) == secret)
            pairs += 1
        }
        #expect(pairs == 5)
        print("share recombination: \(pairs) recorded users")
    }

    /// a·b for two scalars by double-and-add over the group: the tests need products of scalars,
    /// the client does not.
    static func product(_ a: Scalar, _ b: Scalar) -> Scalar {
        var result = Scalar(0)
        for index in stride(from: 255, through: 0, by: -1) {
            result = result + result
            if a.value.bit(index) { result = result + b }
        }
        return result
    }

    /// t / (a·b) in the group: (a·b)⁻¹ = (a·b)^(r−2) mod r.
    static func divide(_ t: G1Point, by a: Scalar, _ b: Scalar) throws -> G1Point {
        let ab = product(a, b)
        var inverse = Scalar(1)
        let exponent = Curve.r.subtractingReportingOverflow(UInt256(limbs: [2, 0, 0, 0])).0
        for index in stride(from: 255, through: 0, by: -1) {
            inverse = product(inverse, inverse)
            if exponent.bit(index) { inverse = product(inverse, ab) }
        }
        return inverse * t
    }
}

/// Candidate mappings of a PIN to the integer that multiplies H(ID).
enum PINCandidate: CaseIterable, Sendable {
    case contract, modMillion, rawHash, digits

    func map(_ pin: String) -> Scalar {
        var hash: Int32 = 0
        for byte in pin.utf8 { hash = 31 &* hash &+ Int32(byte) }
        switch self {
        case .contract: return Scalar(PIN.map(Array(pin.utf8)))
        case .modMillion: return Scalar(UInt64(hash % 1_000_000))
        case .rawHash: return Scalar(UInt64(UInt32(bitPattern: hash)))
        case .digits: return Scalar(UInt64(pin)!)
        }
    }
}

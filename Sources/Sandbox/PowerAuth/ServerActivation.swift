@preconcurrency import Crypto
import PowerAuth

/// One device activation as the simulated server keeps it.
struct ServerActivation {
    enum State: UInt8 {
        case active = 3
        case blocked = 4
        case removed = 5
    }

    static let maxFailedAttempts: UInt8 = 5
    static let lookAhead: UInt8 = 20

    let id: String
    let name: String
    let devicePublicKey: P256.KeyAgreement.PublicKey
    let serverPrivateKey: P256.KeyAgreement.PrivateKey
    let keys: DerivedKeys
    var counterData: [UInt8]
    var counter: UInt64 = 0
    var failedAttempts: UInt8 = 0
    var state: State = .active
    var flags: [String]

    init(id: String, name: String, devicePublicKey: P256.KeyAgreement.PublicKey, flags: [String]) throws {
        self.id = id
        self.name = name
        self.devicePublicKey = devicePublicKey
        serverPrivateKey = P256.KeyAgreement.PrivateKey()
        keys = DerivedKeys(masterSecret: try P256Keys.masterSecret(serverPrivateKey, devicePublicKey))
        counterData = Bytes.random(16)
        self.flags = flags
    }

    func key(_ key: SignatureFactor.Key) -> [UInt8] {
        switch key {
        case .possession: keys.possession
        case .knowledge: keys.knowledge
        case .biometry: keys.biometry
        }
    }

    /// Verifies a signature in the look-ahead window; moves the counter past a match
    /// and counts failures as PowerAuth specifies (not for possession alone).
    mutating func verify(signature: String, factor: SignatureFactor, data: [UInt8]) -> Bool {
        let signingKeys = factor.keys.map(key)
        var candidate = counterData
        for step in 0..<UInt64(Self.lookAhead) {
            let expected = Signature.online(data: data, keys: signingKeys, counter: candidate)
            if Bytes.constantTimeEqual(Bytes.utf8(expected), Bytes.utf8(signature)) {
                counterData = HashCounter.next(candidate)
                counter += step + 1
                if factor.countsFailedAttempts { failedAttempts = 0 }
                return true
            }
            candidate = HashCounter.next(candidate)
        }
        if factor.countsFailedAttempts {
            failedAttempts += 1
            if failedAttempts >= Self.maxFailedAttempts { state = .blocked }
        }
        return false
    }

    func statusBlob() -> StatusBlob {
        StatusBlob(
            state: state.rawValue, currentVersion: 3, upgradeVersion: 3,
            counterByte: UInt8(truncatingIfNeeded: counter),
            failedAttempts: failedAttempts, maxFailedAttempts: Self.maxFailedAttempts, counterLookAhead: Self.lookAhead,
            counterDataHash: HashCounter.hash(counterData, transportKey: keys.transport)
        )
    }
}

/// The encrypted activation status blob of protocol 3.1+ (`0xDEC0DED1`, 32 bytes).
public struct StatusBlob: Equatable, Sendable {
    public static let magic: [UInt8] = [0xDE, 0xC0, 0xDE, 0xD1]

    public enum State: UInt8, Sendable, CustomStringConvertible {
        case created = 1
        case pendingCommit = 2
        case active = 3
        case blocked = 4
        case removed = 5
        public var description: String {
            switch self {
            case .created: "CREATED"
            case .pendingCommit: "PENDING_COMMIT"
            case .active: "ACTIVE"
            case .blocked: "BLOCKED"
            case .removed: "REMOVED"
            }
        }
    }

    public var state: UInt8
    public var currentVersion: UInt8
    public var upgradeVersion: UInt8
    public var counterByte: UInt8
    public var failedAttempts: UInt8
    public var maxFailedAttempts: UInt8
    public var counterLookAhead: UInt8
    public var counterDataHash: [UInt8]

    public init(
        state: UInt8, currentVersion: UInt8, upgradeVersion: UInt8, counterByte: UInt8, failedAttempts: UInt8,
        maxFailedAttempts: UInt8, counterLookAhead: UInt8, counterDataHash: [UInt8]
    ) {
        self.state = state
        self.currentVersion = currentVersion
        self.upgradeVersion = upgradeVersion
        self.counterByte = counterByte
        self.failedAttempts = failedAttempts
        self.maxFailedAttempts = maxFailedAttempts
        self.counterLookAhead = counterLookAhead
        self.counterDataHash = counterDataHash
    }

    /// `STATUS_IV = KDF_INTERNAL(KDF(KEY_TRANSPORT, 3000), challenge ‖ nonce)`.
    public static func iv(transportKey: [UInt8], challenge: [UInt8], nonce: [UInt8]) -> [UInt8] {
        let ivKey = KeyDerivation.derive(transportKey, index: 3000)
        return KeyDerivation.deriveInternal(ivKey, data: challenge + nonce)
    }

    public static func decrypt(
        _ encrypted: [UInt8], transportKey: [UInt8], challenge: [UInt8], nonce: [UInt8]
    ) throws -> StatusBlob {
        guard encrypted.count == 32 else {
            throw PowerAuthError.invalidLength("status blob", expected: 32, actual: encrypted.count)
        }
        let plain = try Symmetric.aesDecrypt(
            encrypted, key: transportKey, iv: iv(transportKey: transportKey, challenge: challenge, nonce: nonce),
            padding: false)
        guard Array(plain[0..<4]) == magic else {
            throw PowerAuthError.malformedPayload("status blob has no 0xDEC0DED1 prefix (wrong transport key?)")
        }
        return StatusBlob(
            state: plain[4], currentVersion: plain[5], upgradeVersion: plain[6],
            counterByte: plain[12], failedAttempts: plain[13], maxFailedAttempts: plain[14],
            counterLookAhead: plain[15], counterDataHash: Array(plain[16..<32])
        )
    }

    public func encrypt(transportKey: [UInt8], challenge: [UInt8], nonce: [UInt8]) throws -> [UInt8] {
        var plain = Self.magic + [state, currentVersion, upgradeVersion] + [UInt8](repeating: 0, count: 5)
        plain += [counterByte, failedAttempts, maxFailedAttempts, counterLookAhead] + counterDataHash
        return try Symmetric.aesEncrypt(
            plain, key: transportKey, iv: Self.iv(transportKey: transportKey, challenge: challenge, nonce: nonce),
            padding: false)
    }

    /// How many steps the server's counter is ahead of `localCounter`, or nil when
    /// it is not within the look-ahead window.
    public func counterDistance(localCounter: [UInt8], transportKey: [UInt8]) -> Int? {
        var counter = localCounter
        for distance in 0..<max(Int(counterLookAhead), 1) {
            if HashCounter.hash(counter, transportKey: transportKey) == counterDataHash { return distance }
            counter = HashCounter.next(counter)
        }
        return nil
    }
}

import Foundation

/// SplitMix64: a small random number generator that a printed seed replays.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed from `variable` in the environment, else a fresh one.
    public static func seed(from variable: String) -> UInt64 {
        ProcessInfo.processInfo.environment[variable].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
    }
}

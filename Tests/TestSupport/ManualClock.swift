import Foundation
import Synchronization

/// A clock that moves only when told: the sandbox's onboarding server reads it, so
/// expiry and resend periods are tested without sleeping.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    public func advance(seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }

    /// For `OnboardingOptions(clock:)`.
    public var reader: @Sendable () -> Date { { [self] in now() } }
}
